package dev.outboxer.cdi.internal.work;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Outbox;
import dev.outboxer.cdi.internal.Keyed;
import dev.outboxer.testing.LogCapture;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Many concurrent publishing transactions of several messages each, some of them drawing their ids
 * early and committing late, on a publish-only node, while another node's workers relay four
 * partitions in small batches: every committed message is relayed. The PostgreSQL soak lost a few
 * messages in millions this way (a partition's read cursor passed a transaction's rows); this test
 * runs the same shape for longer or harder through system properties: {@code loss.seconds}
 * (default 50), {@code loss.threads} (publishers, 3), {@code loss.pause} (ms between a publisher's
 * transactions, 1), {@code loss.batch} (batch size, 5) and {@code loss.twoPhase} (default true: a
 * second resource in every publishing transaction, so that the database's branch is prepared
 * before it commits; with few publishers the probe of running transactions often finds none).
 *
 * <p>Opt-in (it runs for a minute or more): {@code -Dloss.seconds=50}. Before the probe of running
 * transactions read the sessions before the prepared transactions, with the defaults (two-phase
 * publishers) it lost the rows of one publishing transaction in one partition (ids 56805-56821,
 * 7 rows; once a single id) in 2 of 7 runs of 50 s, the soak's signature. Since the cursor's sweep
 * relays such rows late, the test also fails on the sweep's WARNING.
 */
class SteadyPublishingLossTest {

  @Test
  @EnabledIfSystemProperty(named = "loss.seconds", matches = "[0-9]+")
  void every_committed_message_is_relayed_under_steady_concurrent_publishing() throws Exception {
    long seconds = Long.getLong("loss.seconds", 50);
    // As in production and the soak: a publish-only node, and a node whose workers relay (woken across nodes).
    try (LogCapture log = LogCapture.of(BatchProcessor.class);
        OutboxTestContainer container = node(OutboxTestContainer.builder(TestDatabase.POSTGRESQL), "none");
        OutboxTestContainer worker = node(OutboxTestContainer.builder(TestDatabase.POSTGRESQL).keepSchema(), "executor")) {
      Outbox outbox = container.select(Outbox.class);
      RecordingRelay relay = worker.select(RecordingRelay.class);
      Set<Long> committed = ConcurrentHashMap.newKeySet();
      boolean twoPhase = Boolean.parseBoolean(System.getProperty("loss.twoPhase", "true"));
      AtomicBoolean running = new AtomicBoolean(true);
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < Integer.getInteger("loss.threads", 3); t++) {
        int thread = t;
        Thread publisher = new Thread(() -> {
          while (running.get()) {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            int count = 1 + random.nextInt(8);
            boolean slow = random.nextInt(10) == 0;
            try {
              List<Long> ids = container.inTransaction(() -> {
                if (twoPhase) {
                  // A second resource: the transaction manager prepares the database's branch, then commits it.
                  container.transactionManager().getTransaction().enlistResource(new SecondResource());
                }
                List<Long> drawn = new ArrayList<>();
                for (int i = 0; i < count; i++) {
                  drawn.add(outbox.publish("orders", new Keyed("g" + thread + "-" + (i % 3), 0)));
                  if (slow) {
                    Thread.sleep(random.nextInt(3));
                  }
                }
                if (slow) {
                  Thread.sleep(random.nextInt(30));
                }
                return drawn;
              });
              committed.addAll(ids);
            } catch (Exception e) {
              throw new IllegalStateException(e);
            }
            try {
              Thread.sleep(Long.getLong("loss.pause", 1));
            } catch (InterruptedException e) {
              return;
            }
          }
        });
        publisher.start();
        threads.add(publisher);
      }
      Thread.sleep(seconds * 1000);
      running.set(false);
      for (Thread thread : threads) {
        thread.join();
      }
      // Drained: every committed message relayed, or the relayed count stopped growing for 20 s.
      Set<Long> missing = new TreeSet<>();
      int lastRelayed = -1;
      long stalledSince = System.nanoTime();
      while (System.nanoTime() - stalledSince < Duration.ofSeconds(20).toNanos()) {
        Set<Long> relayed = new java.util.HashSet<>();
        relay.confirmed().forEach(record -> relayed.add(record.id()));
        missing.clear();
        for (long id : committed) {
          if (!relayed.contains(id)) {
            missing.add(id);
          }
        }
        if (missing.isEmpty()) {
          break;
        }
        if (relayed.size() != lastRelayed) {
          lastRelayed = relayed.size();
          stalledSince = System.nanoTime();
        }
        Thread.sleep(500);
      }
      System.out.println("LOSS-TEST committed=" + committed.size() + " missing=" + missing.size() + " "
          + missing.stream().limit(40).toList() + " rows left in the table=" + worker.tables().countMessages());
      assertThat(missing.stream().limit(40).toList()).as("committed but never relayed (%d of %d committed)", missing.size(),
          committed.size()).isEmpty();
      // The cursor's sweep relays a row left behind late instead of never: the loss shows as its WARNING.
      assertThat(log.warnings()).as("rows left behind the read position, found by a sweep")
          .noneMatch(warning -> warning.contains("lay below the partition's read position"));
    }
  }

  private static OutboxTestContainer node(OutboxTestContainer.Builder builder, String workers) {
    return builder.viaDataSource()
        .config("outbox.worker", workers)
        .config("outbox.orders.relay", "recording")
        .config("outbox.orders.partitions", "4")
        .config("outbox.orders.batch-size", System.getProperty("loss.batch", "5"))
        .config("outbox.orders.poll-interval", "5ms")
        .config("outbox.orders.max-poll-interval", "20ms")
        .beans(RecordingRelay.class)
        .start();
  }

  /** A resource that votes yes and does nothing: with it, the database's branch is prepared before it commits. */
  private static final class SecondResource implements javax.transaction.xa.XAResource {
    @Override public void commit(javax.transaction.xa.Xid xid, boolean onePhase) {}
    @Override public void end(javax.transaction.xa.Xid xid, int flags) {}
    @Override public void forget(javax.transaction.xa.Xid xid) {}
    @Override public int getTransactionTimeout() { return 0; }
    @Override public boolean isSameRM(javax.transaction.xa.XAResource other) { return false; }
    @Override public int prepare(javax.transaction.xa.Xid xid) { return XA_OK; }
    @Override public javax.transaction.xa.Xid[] recover(int flag) { return new javax.transaction.xa.Xid[0]; }
    @Override public void rollback(javax.transaction.xa.Xid xid) {}
    @Override public boolean setTransactionTimeout(int seconds) { return false; }
    @Override public void start(javax.transaction.xa.Xid xid, int flags) {}
  }
}
