package dev.outboxer.cdi.internal.work;

import static org.awaitility.Awaitility.await;

import dev.outboxer.Outbox;
import dev.outboxer.cdi.internal.Keyed;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import java.time.Duration;

/**
 * The outbox the read-cursor tests share: {@code orders} on PostgreSQL through the data source, one
 * partition, polled every 20 to 50 ms, relayed by {@link RecordingRelay}; and a first traffic that
 * leaves the partition's cursor above what it relayed.
 */
final class OnePartitionOrders {

  private OnePartitionOrders() {}

  /** A container of the outbox {@code orders} as described, to be given more settings and started. */
  static OutboxTestContainer.Builder container(int batchSize) {
    return OutboxTestContainer.builder(TestDatabase.POSTGRESQL).viaDataSource()
        .config("outbox.orders.relay", "recording")
        .config("outbox.orders.partitions", "1")
        .config("outbox.orders.batch-size", String.valueOf(batchSize))
        .config("outbox.orders.poll-interval", "20ms")
        .config("outbox.orders.max-poll-interval", "50ms")
        .beans(RecordingRelay.class);
  }

  /**
   * Publishes {@code count} messages in groups {@code g0} to {@code g2}, one per transaction, waits
   * until all are relayed, and half a second more: the cursor settles above the relayed rows once
   * nothing that could hold their ids runs.
   */
  static void publishRelayedAndSettled(OutboxTestContainer container, int count) throws Exception {
    Outbox outbox = container.select(Outbox.class);
    RecordingRelay relay = container.select(RecordingRelay.class);
    int before = relay.confirmed().size();
    for (int i = 0; i < count; i++) {
      int n = i;
      container.inTransaction(() -> outbox.publish("orders", new Keyed("g" + (n % 3), n)));
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> relay.confirmed().size() >= before + count);
    Thread.sleep(500);
  }
}
