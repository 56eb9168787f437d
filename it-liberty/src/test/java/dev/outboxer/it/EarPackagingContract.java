package dev.outboxer.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.outboxer.it.support.OutboxTables;
import dev.outboxer.sample.OrderDesk;
import dev.outboxer.sample.OrderRequest;
import dev.outboxer.sample.OrderService;
import dev.outboxer.sample.PlacedOrder;
import dev.outboxer.sample.ReceivedEvent;
import dev.outboxer.sample.ReceivedEvents;
import dev.outboxer.sample.ShippingPartner;
import dev.outboxer.sample.SimulatedFailure;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The same application packaged as an EAR, on any server: outbox-api, outbox-cdi and
 * outbox-jms-relay in the EAR's lib/ folder, and beside them lib/orders-core.jar with what Outboxer
 * has to see from there (the persistence unit and its entity, the {@code @OutboxPersistence}
 * producer, the shipping relay bean: CDI beans in lib/ cannot see the web module's); the rest in the
 * web module ({@link OrdersArchives#ear}). On PostgreSQL (jdbc/orders).
 *
 * <p>Outboxer in lib/ starts with the application, before its modules: before the web module's
 * {@code SchemaSetup} singleton. So the schema exists before deployment here, as in production
 * ({@link PreparedPostgresSchema}). Deployed by {@link EarPackagingIT} (Open Liberty) and
 * it-wildfly's subclass.
 */
public abstract class EarPackagingContract {

  @Inject OrderService orders;
  @Inject OrderDesk desk;
  @Inject ReceivedEvents received;
  @Inject ShippingPartner shipping;
  @Inject OutboxTables tables;

  @Test
  void orders_placed_in_the_ear_are_relayed_in_order_to_both_queues_and_the_application_relay() {
    String customer = "ear-" + UUID.randomUUID().toString().substring(0, 8);
    PlacedOrder first = orders.place(new OrderRequest(customer, "map", 1));
    PlacedOrder second = desk.place(new OrderRequest(customer, "compass", 1));
    OrderFlowContract.eventually(Duration.ofSeconds(60)).untilAsserted(() -> {
      assertThat(received.find("orders", null, customer)).extracting(ReceivedEvent::outboxId)
          .containsExactly(first.orderPlacedMessageId(), second.orderPlacedMessageId());
      assertThat(received.find("audit", null, customer)).extracting(ReceivedEvent::outboxId)
          .containsExactly(first.auditMessageId(), second.auditMessageId());
      assertThat(shipping.accepted(first.shipmentMessageId())).isTrue();
      assertThat(shipping.accepted(second.shipmentMessageId())).isTrue();
    });
  }

  @Test
  void a_rolled_back_order_in_the_ear_leaves_no_rows() {
    String customer = "ear-rollback-" + UUID.randomUUID().toString().substring(0, 8);
    SimulatedFailure failure = catchThrowableOfType(SimulatedFailure.class,
        () -> desk.placeThenFail(new OrderRequest(customer, "sextant", 1)));
    assertThat(failure).isNotNull();
    PlacedOrder attempted = failure.attempted();
    assertThat(orders.find(attempted.orderId())).isEmpty();
    assertThat(tables.countMessages(attempted.orderPlacedMessageId(), attempted.auditMessageId(),
        attempted.shipmentMessageId())).isZero();
  }
}
