package com.example.orders;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.OutboxMessage;
import dev.outboxer.Outboxed;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.testing.OutboxerExtension;
import dev.outboxer.testing.RecordingRelay;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class OrderEventsTest {

  @Outboxed("orders")
  public record OrderPaid(long orderId) implements OutboxMessage {
    @Override
    public String groupKey() {
      return "order:" + orderId;
    }
  }

  // One Outboxer for the class, on an in-memory H2 database; its schema is created if missing.
  @RegisterExtension
  static OutboxerExtension outboxer = OutboxerExtension.builder()
      .jdbcUrl("jdbc:h2:mem:orders;DB_CLOSE_DELAY=-1")
      .outbox("orders")                          // relayed by the RecordingRelay
      .config("outbox.orders.max-attempts", "3")
      .build();

  @Test
  void a_paid_order_is_relayed_after_its_transaction_commits(Outbox outbox, RecordingRelay relay)
      throws Exception {
    outboxer.inTransaction(() -> outbox.publish(new OrderPaid(42)));

    List<OutboxRecord> relayed = relay.awaitConfirmations(1);
    assertThat(relayed).extracting(OutboxRecord::groupKey).containsExactly("order:42");
    assertThat(relayed.get(0).payloadText()).isEqualTo("{\"orderId\":42}");
  }

  @Test
  void nothing_is_relayed_when_the_transaction_rolls_back(Outbox outbox, OutboxAdmin admin)
      throws Exception {
    try {
      outboxer.inTransaction(() -> {
        outbox.publish(new OrderPaid(7));
        throw new IllegalStateException("payment declined");
      });
    } catch (IllegalStateException expected) {
      // rolled back, and the message with it
    }

    assertThat(admin.counts("orders").pending()).isZero();
  }

  @Test
  void a_failed_delivery_is_retried_and_holds_back_its_group(Outbox outbox, RecordingRelay relay)
      throws Exception {
    relay.failNext(1);                           // the first delivery fails
    long first = outboxer.inTransaction(() -> outbox.publish(new OrderPaid(1)));
    long second = outboxer.inTransaction(() -> outbox.publish(new OrderPaid(1)));
    relay.awaitHanded(1);

    outboxer.advanceClock(Duration.ofMinutes(1)); // past the retry time, without sleeping

    assertThat(relay.awaitConfirmations(2)).extracting(OutboxRecord::id).containsExactly(first, second);
  }
}
