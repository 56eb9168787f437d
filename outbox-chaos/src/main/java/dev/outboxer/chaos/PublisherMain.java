package dev.outboxer.chaos;

import dev.outboxer.Outbox;
import dev.outboxer.testing.OutboxTestContainer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The publisher process: {@code messages} messages over {@code groups} groups from several threads,
 * paced over the fault period, 1 to 5 messages per JTA transaction, each with its ledger row in the
 * same transaction; about {@code rollback-rate} of the transactions roll back on purpose after
 * publishing. Writes its counts to {@code publisher.properties} in the run directory and exits.
 *
 * <p>Arguments: the run's settings as {@code key=value}, then {@code dir=<run directory>}.
 */
public final class PublisherMain {

  static final String READY = "chaos publisher ready";

  private PublisherMain() {}

  /** Thrown inside a transaction to roll it back on purpose. */
  private static final class IntentionalRollback extends RuntimeException {
    private static final long serialVersionUID = 1L;

    IntentionalRollback() {
      super("rolled back on purpose by the chaos publisher", null, false, false);
    }
  }

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(NodeArgs.value(args, "dir"));
    ChaosSettings settings = ChaosSettings.parse(NodeArgs.settings(args));
    Databases databases = new Databases(settings.database());

    try (OutboxTestContainer container = OutboxTestContainer.builder(databases.nodeTarget("chaos-publisher"))
        .config(NodeConfig.publisher(settings))
        .beans(NodeArgs.relayBeans(settings))
        .poolSize(settings.publisherThreads() + 2)
        .start()) {
      Outbox outbox = container.select(Outbox.class);
      System.out.println(READY);
      System.out.flush();
      AtomicLong issued = new AtomicLong();
      AtomicLong committedMessages = new AtomicLong();
      AtomicLong rolledBackMessages = new AtomicLong();
      AtomicLong failedMessages = new AtomicLong();
      AtomicLong transactions = new AtomicLong();
      ConcurrentHashMap<String, Long> failures = new ConcurrentHashMap<>();
      long start = System.nanoTime();
      long periodNanos = settings.faultPeriod().toNanos();
      int total = settings.messages();

      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < settings.publisherThreads(); t++) {
        Random random = new Random(settings.seed() * 31 + t);
        Thread thread = new Thread(() -> {
          while (true) {
            int size = 1 + random.nextInt(5);
            long first = issued.getAndAdd(size);
            if (first >= total) {
              return;
            }
            int count = (int) Math.min(size, total - first);
            // Pace: message n is due at n/total of the period.
            long due = start + first * periodNanos / total;
            long wait = due - System.nanoTime();
            if (wait > 0) {
              sleep(wait / 1_000_000);
            }
            List<String> groups = new ArrayList<>();
            for (int i = 0; i < count; i++) {
              groups.add(Ledger.group(random.nextInt(settings.groups())));
            }
            // Group write locks are taken in one order by every transaction: no deadlocks between publishers.
            groups.sort(null);
            boolean rollback = random.nextDouble() < settings.rollbackRate();
            long tx = transactions.incrementAndGet();
            try {
              container.inTransaction(() -> {
                try (Connection connection = container.dataSource().getConnection()) {
                  for (int i = 0; i < groups.size(); i++) {
                    String group = groups.get(i);
                    long id = outbox.publish(new ChaosEvent(group, tx, i));
                    Ledger.record(connection, id, group, OutboxerTables.partitionOf(group, settings.partitions()), tx);
                  }
                }
                if (rollback) {
                  throw new IntentionalRollback();
                }
              });
              committedMessages.addAndGet(count);
            } catch (IntentionalRollback expected) {
              rolledBackMessages.addAndGet(count);
            } catch (Exception | LinkageError e) {
              // LinkageError too: a core that changed under the suite must show, not end the thread silently.
              failedMessages.addAndGet(count);
              String kind = e.getClass().getSimpleName() + ": " + e.getMessage();
              if (failures.merge(kind, 1L, Long::sum) == 1) {
                System.out.println("publisher: a transaction failed (first of its kind): " + kind);
              }
            }
          }
        }, "chaos-publisher-" + t);
        threads.add(thread);
        thread.start();
      }
      for (Thread thread : threads) {
        thread.join();
      }
      String summary = "committed=" + committedMessages.get() + "\nrolled-back=" + rolledBackMessages.get()
          + "\nfailed=" + failedMessages.get() + "\ntransactions=" + transactions.get()
          + "\nseconds=" + (System.nanoTime() - start) / 1_000_000_000.0 + "\n";
      Files.writeString(dir.resolve("publisher.properties"), summary);
      System.out.println("publisher: done\n" + summary);
    }
    System.exit(0);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
