package dev.outboxer.kafka;

import dev.outboxer.testing.TestRelayBatch;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Ordering;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.Relay;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Measures, does not assert a speed: how many messages per second the relay pushes into the
 * embedded broker, 100,000 records of 200 bytes in batches of 100 from 4 threads (4 outbox
 * partitions, one worker each, one shared relay), against a 4-partition topic, with each fencing
 * mode: {@code transactional} (a Kafka transaction per batch) and {@code none}. Not part of the
 * build (the name does not match Surefire's patterns); run it with
 * {@code mvn -f outbox-kafka-relay/pom.xml test -Dtest=KafkaRelayThroughputBenchmark}.
 */
class KafkaRelayThroughputBenchmark {

  @RegisterExtension static final EmbeddedKafkaBroker KAFKA = new EmbeddedKafkaBroker();

  private static final int THREADS = 4;
  private static final int BATCH = 100;
  private static final int PAYLOAD_BYTES = 200;
  private static final Duration RELAY_TIMEOUT = Duration.ofSeconds(30);

  @ParameterizedTest(name = "{0}: {1} records, {2} group keys per partition, fencing {4}")
  @CsvSource({
    "warm-up, 20000, 1000, GROUP, transactional",
    "warm-up, 20000, 1000, GROUP, none",
    "many groups, 100000, 1000, GROUP, transactional",
    "many groups, 100000, 1000, GROUP, none",
    "10 hot groups, 100000, 10, GROUP, transactional",
    "10 hot groups, 100000, 10, GROUP, none",
    "unordered, 100000, 0, NONE, transactional",
    "unordered, 100000, 0, NONE, none",
  })
  void relayThroughput(String label, int total, int keysPerPartition, Ordering ordering,
      String fencing) throws Exception {
    String topic = "bench-" + label.replace(' ', '-') + "-" + fencing;
    KAFKA.createTopic(topic, THREADS, Map.of());
    OutboxRecords records = new OutboxRecords("bench");
    List<List<OutboxRecord>> perPartition = new ArrayList<>();
    for (int p = 0; p < THREADS; p++) {
      List<OutboxRecord> mine = new ArrayList<>(total / THREADS);
      for (int i = 0; i < total / THREADS; i++) {
        String key =
            keysPerPartition == 0 ? null : "order:" + p + ":" + (i * 7919) % keysPerPartition;
        mine.add(records.next(p, key, new byte[PAYLOAD_BYTES], Map.of()));
      }
      perPartition.add(mine);
    }

    ExecutorService workers = Executors.newFixedThreadPool(THREADS);
    long unconfirmed = 0;
    long start;
    long nanos;
    try (Relay relay = KafkaRelayTest.relay(KAFKA, topic, RELAY_TIMEOUT,
        Map.of("fencing", fencing))) {
      List<Future<Long>> done = new ArrayList<>();
      start = System.nanoTime();
      for (List<OutboxRecord> mine : perPartition) {
        done.add(workers.submit(() -> relay(relay, ordering, mine)));
      }
      for (Future<Long> worker : done) {
        unconfirmed += worker.get();
      }
      nanos = System.nanoTime() - start;
    } finally {
      workers.shutdown();
    }

    assertThat(unconfirmed).isZero();
    double perSecond = total / (nanos / 1e9);
    System.out.printf("BENCHMARK %-13s fencing %-13s %,7d records, %d threads, batches of %d, "
        + "%d-byte payloads: %,.0f messages/s (%.2f s)%n", label, fencing, total, THREADS, BATCH,
        PAYLOAD_BYTES, perSecond, nanos / 1e9);
  }

  private static long relay(Relay relay, Ordering ordering, List<OutboxRecord> records)
      throws Exception {
    long unconfirmed = 0;
    for (int from = 0; from < records.size(); from += BATCH) {
      TestRelayBatch batch = new TestRelayBatch(ordering,
          records.subList(from, Math.min(records.size(), from + BATCH)), RELAY_TIMEOUT);
      relay.relay(batch);
      batch.end();
      unconfirmed += batch.unconfirmed().size();
      batch.failed().stream().findFirst().ifPresent(failed -> System.out.printf(
          "BENCHMARK batch at id %d: %d failed, %d unconfirmed, first cause %s%n",
          batch.records().get(0).id(), batch.failed().size(), batch.unconfirmed().size(),
          ((TestRelayBatch.Failed) batch.outcome(failed)).cause()));
    }
    return unconfirmed;
  }
}
