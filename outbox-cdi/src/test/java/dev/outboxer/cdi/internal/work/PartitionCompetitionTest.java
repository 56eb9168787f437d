package dev.outboxer.cdi.internal.work;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.Outbox;
import dev.outboxer.cdi.internal.Keyed;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.RecordingRelay.BatchSpan;
import dev.outboxer.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Two nodes (two containers, each with its own pool, EntityManagers, workers and relay) share one
 * PostgreSQL database and compete for the same partitions while thousands of messages of a hundred
 * groups drain: a partition is never worked by both at once, nothing is lost or doubled, and every
 * group arrives in publish order across both nodes.
 */
class PartitionCompetitionTest {

  private static final int MESSAGES = 5000;
  private static final int GROUPS = 100;

  @Test
  void two_nodes_never_hold_a_partition_at_once_and_never_reorder_a_group() throws Exception {
    try (OutboxTestContainer first = node(OutboxTestContainer.builder(TestDatabase.POSTGRESQL));
        OutboxTestContainer second = node(OutboxTestContainer.builder(TestDatabase.POSTGRESQL).keepSchema())) {
      RecordingRelay firstRelay = first.select(RecordingRelay.class);
      RecordingRelay secondRelay = second.select(RecordingRelay.class);
      // Slow batches widen the window in which both nodes try to claim the same partition.
      firstRelay.delayEachBatch(Duration.ofMillis(3));
      secondRelay.delayEachBatch(Duration.ofMillis(3));

      Map<String, List<Long>> published = new HashMap<>();
      List<Long> all = new ArrayList<>();
      for (int transaction = 0; transaction < MESSAGES / 100; transaction++) {
        // Both nodes publish, one transaction after the other: insertion order is commit order.
        OutboxTestContainer publisher = transaction % 2 == 0 ? first : second;
        Outbox outbox = publisher.select(Outbox.class);
        int base = transaction * 100;
        publisher.inTransaction(() -> {
          for (int i = 0; i < 100; i++) {
            String group = "group-" + ((base + i) * 7 % GROUPS);
            long id = outbox.publish("orders", new Keyed(group, base + i));
            published.computeIfAbsent(group, key -> new ArrayList<>()).add(id);
            all.add(id);
          }
        });
      }

      await().atMost(Duration.ofSeconds(60))
          .until(() -> firstRelay.confirmed().size() + secondRelay.confirmed().size() >= MESSAGES);

      List<Confirmation> confirmations = new ArrayList<>();
      firstRelay.confirmed().forEach(record -> confirmations.add(new Confirmation(record, firstRelay.confirmedNanos(record.id()))));
      secondRelay.confirmed().forEach(record -> confirmations.add(new Confirmation(record, secondRelay.confirmedNanos(record.id()))));
      assertThat(confirmations).extracting(c -> c.record().id()).containsExactlyInAnyOrderElementsOf(all);
      assertThat(firstRelay.confirmed()).as("the first node relayed some").isNotEmpty();
      assertThat(secondRelay.confirmed()).as("the second node relayed some").isNotEmpty();

      confirmations.sort(Comparator.comparingLong(Confirmation::nanos));
      Map<String, List<Long>> received = new HashMap<>();
      confirmations.forEach(c -> received.computeIfAbsent(c.record().groupKey(), key -> new ArrayList<>()).add(c.record().id()));
      assertThat(received).isEqualTo(published);

      List<BatchSpan> spans = new ArrayList<>(firstRelay.spans());
      spans.addAll(secondRelay.spans());
      assertNoPartitionWorkedTwiceAtOnce(spans);
    }
  }

  private static OutboxTestContainer node(OutboxTestContainer.Builder builder) {
    return builder
        .config("outbox.orders.relay", "recording")
        .config("outbox.orders.partitions", "4")
        .config("outbox.orders.batch-size", "20")
        .config("outbox.orders.poll-interval", "20ms")
        .config("outbox.orders.max-poll-interval", "100ms")
        .beans(RecordingRelay.class)
        .start();
  }

  private static void assertNoPartitionWorkedTwiceAtOnce(List<BatchSpan> spans) {
    Map<Integer, List<BatchSpan>> byPartition = new HashMap<>();
    spans.forEach(span -> byPartition.computeIfAbsent(span.partition(), key -> new ArrayList<>()).add(span));
    Set<Integer> partitions = new HashSet<>();
    byPartition.forEach((partition, partitionSpans) -> {
      partitions.add(partition);
      partitionSpans.sort(Comparator.comparingLong(BatchSpan::startNanos));
      for (int i = 1; i < partitionSpans.size(); i++) {
        assertThat(partitionSpans.get(i).startNanos()).as("partition " + partition + ": batch " + i + " started before the"
            + " previous batch ended").isGreaterThanOrEqualTo(partitionSpans.get(i - 1).endNanos());
      }
    });
    assertThat(partitions).containsExactlyInAnyOrder(0, 1, 2, 3);
  }

  private record Confirmation(OutboxRecord record, long nanos) {}
}
