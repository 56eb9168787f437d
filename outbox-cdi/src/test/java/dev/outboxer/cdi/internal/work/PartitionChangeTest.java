package dev.outboxer.cdi.internal.work;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.cdi.internal.Keyed;
import dev.outboxer.cdi.internal.store.GroupHash;
import dev.outboxer.cdi.internal.store.OutboxMessageEntity;
import dev.outboxer.cdi.internal.store.OutboxRulesEntity;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The partition count in force is persisted: a restart with another count is refused while
 * messages are pending (they would be reordered or orphaned), and carried out once the outbox has
 * drained, moving dead messages to their new partitions so that a revived one is still read.
 */
class PartitionChangeTest {

  @Test
  void a_changed_partition_count_is_refused_on_a_live_backlog_and_applied_once_drained() throws Exception {
    List<Long> ids = new ArrayList<>();
    try (OutboxTestContainer publishOnly = node(OutboxTestContainer.builder(TestDatabase.POSTGRESQL), 2, "none")) {
      Outbox outbox = publishOnly.select(Outbox.class);
      publishOnly.inTransaction(() -> {
        for (int i = 0; i < 10; i++) {
          ids.add(outbox.publish("orders", new Keyed("group-" + i % 3, i)));
        }
      });
    }

    assertThatThrownBy(() -> node(OutboxTestContainer.builder(TestDatabase.POSTGRESQL).keepSchema(), 4, "executor"))
        .hasStackTraceContaining("outbox.orders.partitions=4 differs from the 2 partition(s) in force for outbox 'orders'")
        .hasStackTraceContaining("10 message(s) are pending");

    // Drain with the count in force; one message dies on the way.
    long doomed = ids.get(4);
    try (OutboxTestContainer draining = node(OutboxTestContainer.builder(TestDatabase.POSTGRESQL).keepSchema(), 2, "executor")) {
      RecordingRelay relay = draining.select(RecordingRelay.class);
      relay.failWhen(record -> record.id() == doomed);
      OutboxAdmin admin = draining.select(OutboxAdmin.class);
      await().atMost(Duration.ofSeconds(20)).until(() -> admin.counts("orders").pending() == 0);
      assertThat(admin.counts("orders").dead()).isEqualTo(1);
    }

    try (OutboxTestContainer resized = node(OutboxTestContainer.builder(TestDatabase.POSTGRESQL).keepSchema(), 4, "executor")) {
      resized.inTransaction(() -> {
        OutboxRulesEntity rules = resized.entityManager().find(OutboxRulesEntity.class, "orders");
        assertThat(rules.partitions()).isEqualTo(4);
        assertThat(resized.entityManager().createQuery("SELECT COUNT(p) FROM OutboxPartitionEntity p WHERE p.outbox = 'orders'",
            Long.class).getSingleResult()).isEqualTo(4);
        OutboxMessageEntity dead = resized.entityManager().find(OutboxMessageEntity.class, doomed);
        assertThat(dead.partition()).isEqualTo(GroupHash.partition(dead.groupKey(), 4));
      });
      RecordingRelay relay = resized.select(RecordingRelay.class);
      assertThat(resized.select(OutboxAdmin.class).retryDead("orders")).isEqualTo(1);
      await().atMost(Duration.ofSeconds(20)).until(() -> relay.confirmed().size() == 1);
      assertThat(relay.confirmed()).extracting(OutboxRecord::id).containsExactly(doomed);
    }
  }

  private static OutboxTestContainer node(OutboxTestContainer.Builder builder, int partitions, String worker) {
    return builder
        .config("outbox.worker", worker)
        .config("outbox.orders.relay", "recording")
        .config("outbox.orders.partitions", String.valueOf(partitions))
        .config("outbox.orders.max-attempts", "1")
        .config("outbox.orders.poll-interval", "50ms")
        .beans(RecordingRelay.class)
        .start();
  }

}
