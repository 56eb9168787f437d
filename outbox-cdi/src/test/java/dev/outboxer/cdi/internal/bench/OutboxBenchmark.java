package dev.outboxer.cdi.internal.bench;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.cdi.internal.Keyed;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Measures Outboxer on the local PostgreSQL with a relay that sends nothing: how fast a 100k
 * backlog drains with 1 and 4 partitions, how fast one thread publishes, and the publish-to-relay
 * latency on an idle node. A measurement, not a test: it prints numbers and asserts nothing.
 *
 * <pre>
 * mvn -q install -DskipTests -pl outbox-api,outbox-testing,outbox-cdi
 * mvn -q -pl outbox-cdi test-compile exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=dev.outboxer.cdi.internal.bench.OutboxBenchmark
 *     [-Dbench.messages=100000 -Dbench.partitions=1,4 -Dbench.batch-size=100 -Dbench.latency-samples=200]
 * </pre>
 */
public final class OutboxBenchmark {

  private static final int MESSAGES = Integer.getInteger("bench.messages", 100_000);
  private static final int GROUPS = Integer.getInteger("bench.groups", 1_000);
  private static final int PER_TRANSACTION = 1_000;
  private static final String BATCH_SIZE = System.getProperty("bench.batch-size", "100");
  private static final int[] PARTITIONS = java.util.Arrays.stream(System.getProperty("bench.partitions", "1,4").split(","))
      .mapToInt(Integer::parseInt).toArray();
  private static final int LATENCY_SAMPLES = Integer.getInteger("bench.latency-samples", 200);

  private OutboxBenchmark() {}

  public static void main(String[] args) throws Exception {
    System.out.printf(Locale.ROOT, "Outboxer benchmark: PostgreSQL, no-op relay, %d messages over %d groups, batch-size %s,"
        + " %d cores%n", MESSAGES, GROUPS, BATCH_SIZE, Runtime.getRuntime().availableProcessors());
    for (int partitions : PARTITIONS) {
      drain(partitions);
    }
    if (LATENCY_SAMPLES > 0) {
      latency();
    }
    System.exit(0);
  }

  private static void drain(int partitions) throws Exception {
    long publishNanos;
    try (OutboxTestContainer filler = node(OutboxTestContainer.builder(TestDatabase.POSTGRESQL), partitions, "none")) {
      Outbox outbox = filler.select(Outbox.class);
      long start = System.nanoTime();
      for (int transaction = 0; transaction < MESSAGES / PER_TRANSACTION; transaction++) {
        int base = transaction * PER_TRANSACTION;
        filler.inTransaction(() -> {
          for (int i = 0; i < PER_TRANSACTION; i++) {
            outbox.publish("bench", new Keyed("group-" + (base + i) % GROUPS, base + i));
          }
        });
      }
      publishNanos = System.nanoTime() - start;
    }
    try (OutboxTestContainer drainer = node(OutboxTestContainer.builder(TestDatabase.POSTGRESQL).keepSchema(), partitions, "executor")) {
      CountingRelay relay = drainer.select(CountingRelay.class);
      OutboxAdmin admin = drainer.select(OutboxAdmin.class);
      while (relay.confirmed() < MESSAGES) {
        Thread.sleep(20);
      }
      while (admin.counts("bench").pending() > 0) {
        Thread.sleep(20);
      }
      double seconds = (relay.lastBatchNanos() - relay.firstBatchNanos()) / 1e9;
      System.out.printf(Locale.ROOT, "partitions=%d: published %d in %.1fs (%.0f msg/s, one thread, %d per transaction);"
              + " drained in %.1fs = %.0f msg/s%n", partitions, MESSAGES, publishNanos / 1e9, MESSAGES / (publishNanos / 1e9),
          PER_TRANSACTION, seconds, relay.confirmed() / seconds);
    }
  }

  private static void latency() throws Exception {
    try (OutboxTestContainer node = node(OutboxTestContainer.builder(TestDatabase.POSTGRESQL), 4, "executor")) {
      Outbox outbox = node.select(Outbox.class);
      CountingRelay relay = node.select(CountingRelay.class);
      relay.recordTimes();
      Thread.sleep(1_000); // let the workers go idle
      List<Long> micros = new ArrayList<>();
      for (int i = 0; i < LATENCY_SAMPLES; i++) {
        int sequence = i;
        long started = System.nanoTime();
        long id = node.inTransaction(() -> outbox.publish("bench", new Keyed("latency-" + sequence % 10, sequence)));
        while (relay.handedNanos(id) == null) {
          Thread.onSpinWait();
        }
        micros.add(TimeUnit.NANOSECONDS.toMicros(relay.handedNanos(id) - started));
        Thread.sleep(20);
      }
      micros.sort(Long::compare);
      System.out.printf(Locale.ROOT, "idle node, publish (begin, insert, commit) to relay: median %.2fms, p90 %.2fms, max %.2fms"
              + " over %d messages (poll-interval 500ms)%n", micros.get(micros.size() / 2) / 1000.0,
          micros.get(micros.size() * 9 / 10) / 1000.0, micros.get(micros.size() - 1) / 1000.0, micros.size());
    }
  }

  private static OutboxTestContainer node(OutboxTestContainer.Builder builder, int partitions, String worker) {
    return builder
        .config("outbox.worker", worker)
        .config("outbox.bench.relay", "counting")
        .config("outbox.bench.partitions", String.valueOf(partitions))
        .config("outbox.bench.batch-size", BATCH_SIZE)
        .beans(CountingRelay.class)
        .start();
  }
}
