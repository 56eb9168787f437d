package dev.outboxer.kafka;

import dev.outboxer.testing.TestRelayBatch;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Ordering;
import dev.outboxer.kafka.TopicReader.Received;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.Relay;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The broker stops in the middle of a stream and comes back: the test plays the core's partition
 * worker (pending records in id order, batches of at most 40, failed and held-back records stay
 * pending and are relayed again) while the broker is stopped and restarted under it.
 */
class KafkaRelayBrokerOutageTest {

  @RegisterExtension static final EmbeddedKafkaBroker KAFKA = new EmbeddedKafkaBroker();

  private static final Duration RELAY_TIMEOUT = Duration.ofSeconds(4);
  private static final int MESSAGES = 1_200;

  @Test
  void nothingIsLostAndPerKeyOrderHoldsAcrossABrokerRestart() throws Exception {
    String topic = "orders-outage";
    KAFKA.createTopic(topic, 3, Map.of());
    OutboxRecords records = new OutboxRecords("orders");
    List<OutboxRecord> published = new ArrayList<>();
    List<OutboxRecord> pending = new ArrayList<>();
    Map<Long, Integer> timesRelayed = new HashMap<>();
    int batchesWithFailures = 0;
    List<String> violations = new ArrayList<>();
    List<Duration> overruns = new ArrayList<>();
    CompletableFuture<Void> outage = null;
    CountDownLatch brokerStopped = new CountDownLatch(1);

    try (Relay relay = KafkaRelayTest.relay(KAFKA, topic, RELAY_TIMEOUT, Map.of())) {
      long giveUp = System.nanoTime() + Duration.ofSeconds(120).toNanos();
      while ((published.size() < MESSAGES || !pending.isEmpty()) && System.nanoTime() < giveUp) {
        // publish: 20 new messages per round over 12 keys, every 7th without a key
        // after the 300th, nothing more is published until the broker is down: on a slow machine the
        // loop would otherwise relay everything before the outage begins
        boolean waitForOutage = outage != null && brokerStopped.getCount() > 0;
        for (int i = 0; i < 20 && published.size() < MESSAGES && !waitForOutage; i++) {
          int n = published.size();
          OutboxRecord record = records.next(0, n % 7 == 6 ? null : "order:" + n % 12);
          published.add(record);
          pending.add(record);
        }
        if (published.size() == 300 && outage == null) {
          // stop the broker while batches are in flight, restart it 8 s later
          outage = CompletableFuture.runAsync(() -> {
            sleep(Duration.ofMillis(50));
            KAFKA.stop();
            brokerStopped.countDown();
            sleep(Duration.ofSeconds(8));
            KAFKA.start();
          });
        }
        if (pending.isEmpty()) {
          sleep(Duration.ofMillis(20)); // everything went out before the broker stopped: wait for the outage
          continue;
        }
        TestRelayBatch batch = new TestRelayBatch(Ordering.GROUP,
            pending.subList(0, Math.min(40, pending.size())), RELAY_TIMEOUT);
        batch.records().forEach(r -> timesRelayed.merge(r.id(), 1, Integer::sum));
        long start = System.nanoTime();
        try {
          relay.relay(batch);
        } catch (RuntimeException e) {
          // the core counts every unreported record as failed; so does this loop
        }
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        batch.end();
        if (took.compareTo(RELAY_TIMEOUT.plusMillis(500)) > 0) {
          overruns.add(took);
        }
        if (!batch.failed().isEmpty()) {
          batchesWithFailures++;
        }
        violations.addAll(batch.violations());
        pending.removeAll(batch.confirmed());
      }
      outage.get();
    }

    assertThat(pending).as("still pending after 120 s").isEmpty();
    assertThat(batchesWithFailures).as("batches with failures while the broker was down")
        .isPositive();
    assertThat(violations).isEmpty();
    assertThat(overruns).as("relay calls that outlasted the batch deadline").isEmpty();

    List<Received> received = TopicReader.readAll(KAFKA.bootstrapServers(), topic, MESSAGES,
        Duration.ofSeconds(30));
    Set<Long> publishedIds = published.stream().map(OutboxRecord::id).collect(Collectors.toSet());
    assertThat(received.stream().map(Received::outboxId).collect(Collectors.toSet()))
        .as("every message arrived").isEqualTo(publishedIds);

    Map<String, List<Long>> publishedByKey = published.stream()
        .filter(r -> r.groupKey() != null)
        .collect(Collectors.groupingBy(OutboxRecord::groupKey,
            Collectors.mapping(OutboxRecord::id, Collectors.toList())));
    Map<String, List<Long>> receivedByKey = received.stream()
        .filter(r -> r.key() != null)
        .collect(Collectors.groupingBy(Received::key,
            Collectors.mapping(Received::outboxId, Collectors.toList())));
    publishedByKey.forEach((key, ids) -> {
      List<Long> got = receivedByKey.get(key);
      // duplicates may only repeat the id just received: never an older id after a newer one
      assertThat(got).as("ids of %s, in partition order", key).isSorted();
      assertThat(got.stream().distinct().toList()).as("ids of %s without duplicates", key)
          .isEqualTo(ids);
    });
    Set<Long> seen = new HashSet<>();
    List<Long> duplicates = received.stream().map(Received::outboxId).filter(id -> !seen.add(id))
        .toList();
    assertThat(duplicates).as("duplicates are re-sent records")
        .allSatisfy(id -> assertThat(timesRelayed.get(id)).isGreaterThan(1));
    System.out.printf("outage: %d batches with failures, %d records relayed more than once, "
        + "%d duplicates in the topic%n", batchesWithFailures,
        timesRelayed.values().stream().filter(times -> times > 1).count(), duplicates.size());
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
