package dev.outboxer.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.outboxer.Ordering;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.testing.ForwardingRelayBatch;
import dev.outboxer.testing.OutboxRecords;
import dev.outboxer.testing.TestRelayBatch;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The local RabbitMQ stopped ({@code rabbitmqctl stop_app}) in the middle of a batch and started
 * again: the records confirmed before are in the queue (durable, persistent), the rest fail or go
 * unreported, and the relay's next batch, on a new connection, delivers them in order.
 */
class RabbitRelayBrokerRestartTest {

  private static final int GROUPS = 10;
  private static final int PER_GROUP = 20;

  @Test
  void a_broker_restart_mid_batch_fails_what_was_not_confirmed_and_the_next_batch_delivers_it_in_order()
      throws Exception {
    try (LocalRabbitMq rabbit = new LocalRabbitMq()) {
      String exchange = rabbit.directExchange();
      String queue = rabbit.queue();
      rabbit.bind(queue, exchange, "all");
      Map<String, String> settings = new HashMap<>(LocalRabbitMq.relaySettings(exchange));
      settings.put("routing-key", "all");
      OutboxRecords records = new OutboxRecords("orders");
      List<OutboxRecord> all = new ArrayList<>();
      for (int i = 0; i < GROUPS * PER_GROUP; i++) {
        all.add(records.next(0, "order-" + i % GROUPS));
      }
      try (Relay relay = new RabbitRelayProvider().create(
          new RelayContext("orders", Ordering.GROUP, 1, Duration.ofSeconds(30), settings))) {
        TestRelayBatch first = new TestRelayBatch(Ordering.GROUP, all, Duration.ofSeconds(30));
        Throwable thrown;
        try {
          // The broker stops while the relay reports the third wave: the fourth finds it gone.
          thrown = catchThrowable(() -> relay.relay(new StoppingBrokerAfterConfirms(first, 2 * GROUPS + 5)));
          first.end(thrown);
        } finally {
          Rabbitmqctl.run("start_app");
        }

        assertThat(thrown).isInstanceOf(RabbitRelayException.class)
            .hasMessageContaining("could not publish to exchange '" + exchange + "'")
            .hasMessageContaining("320 CONNECTION_FORCED");
        List<OutboxRecord> confirmed = first.confirmed();
        // The third wave's acks were all in before its reports, so all of it is confirmed.
        assertThat(confirmed).hasSize(3 * GROUPS);
        List<Long> survived = rabbit.drainIds(queue);
        assertThat(survived).as("every confirmed record survived the restart")
            .containsAll(confirmed.stream().map(OutboxRecord::id).toList());

        List<OutboxRecord> rest = first.unconfirmed();
        TestRelayBatch second = new TestRelayBatch(Ordering.GROUP, rest, Duration.ofSeconds(30));
        Instant start = Instant.now();
        relay.relay(second);
        second.end();

        assertThat(second.confirmed()).as("a new connection, within %s", Duration.between(start, Instant.now()))
            .containsExactlyElementsOf(rest);
        List<Long> received = new ArrayList<>(survived);
        received.addAll(rabbit.drainIds(queue));
        // At least once: a record published but not confirmed before the stop may be there twice.
        // Its first copy comes in its group's order, which is what a consumer dropping duplicates sees.
        Map<String, List<Long>> firstCopiesByGroup = new HashMap<>();
        for (long id : new LinkedHashSet<>(received)) {
          firstCopiesByGroup.computeIfAbsent("order-" + (id - 1) % GROUPS, key -> new ArrayList<>()).add(id);
        }
        assertThat(firstCopiesByGroup).hasSize(GROUPS).allSatisfy((group, ids) ->
            assertThat(ids).isSorted().hasSize(PER_GROUP));
      }
    }
  }

  /** Stops the broker's application when the relay reports the {@code n}-th confirmation. */
  private static final class StoppingBrokerAfterConfirms extends ForwardingRelayBatch {
    private final TestRelayBatch inner;
    private final int n;
    private final AtomicInteger confirms = new AtomicInteger();

    StoppingBrokerAfterConfirms(TestRelayBatch inner, int n) {
      super(inner);
      this.inner = inner;
      this.n = n;
    }

    @Override
    public void confirm(OutboxRecord record) {
      inner.confirm(record);
      if (confirms.incrementAndGet() == n) {
        try {
          Rabbitmqctl.run("stop_app");
        } catch (Exception e) {
          throw new AssertionError("rabbitmqctl stop_app failed", e);
        }
      }
    }
  }
}
