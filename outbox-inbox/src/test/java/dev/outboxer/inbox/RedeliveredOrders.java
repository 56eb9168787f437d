package dev.outboxer.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Outbox;
import dev.outboxer.testing.OutboxTestContainer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The scenario the end-to-end tests share, whatever the broker: 40 order events published in 4
 * transactions over 5 groups and a few ungrouped ones, sent while {@link RedeliveringInterceptor}
 * rolls batches back after the broker had them; then what the consumer must have done with them.
 *
 * @param published every id, in publish order
 * @param byGroup the ids of each group, in publish order
 */
record RedeliveredOrders(List<Long> published, Map<String, List<Long>> byGroup) {

  static RedeliveredOrders publish(OutboxTestContainer container, Outbox outbox) throws Exception {
    Map<String, List<Long>> byGroup = new LinkedHashMap<>();
    List<Long> published = new ArrayList<>();
    for (int transaction = 0; transaction < 4; transaction++) {
      int base = transaction * 10;
      container.inTransaction(() -> {
        for (int i = 0; i < 10; i++) {
          String order = (base + i) % 8 == 7 ? null : "order-" + (base + i) % 5;
          long id = outbox.publish(new OrderEvent(order, base + i));
          published.add(id);
          if (order != null) {
            byGroup.computeIfAbsent(order, key -> new ArrayList<>()).add(id);
          }
        }
      });
    }
    return new RedeliveredOrders(published, byGroup);
  }

  /** Whether the consumer has processed every message and received every copy the rolled-back batches sent. */
  boolean allConsumed(ProcessingConsumer consumer, RedeliveringInterceptor redelivering) {
    return consumer.processed().size() >= published.size()
        && consumer.received() >= published.size() + redelivering.recordsSentAgain();
  }

  /** Each message processed once, in group order, every copy dropped, each processing's row written once. */
  void assertEachProcessedOnceInGroupOrder(OutboxTestContainer container, ProcessingConsumer consumer,
      RedeliveringInterceptor redelivering) throws Exception {
    assertThat(redelivering.rolledBack()).isEqualTo(3);
    assertThat(redelivering.recordsSentAgain()).isPositive();
    assertThat(consumer.received()).isEqualTo(published.size() + redelivering.recordsSentAgain());
    assertThat(consumer.dropped()).isEqualTo(redelivering.recordsSentAgain());
    assertThat(consumer.processedIds()).containsExactlyInAnyOrderElementsOf(published);
    assertThat(consumer.processedByGroup()).isEqualTo(byGroup);
    assertThat(ProcessingConsumer.rowsWritten(container, published)).isEqualTo(published.size());
  }
}
