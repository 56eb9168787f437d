package dev.outboxer.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import dev.outboxer.DeadMessage;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.it.support.OutboxTables;
import dev.outboxer.sample.OrderDesk;
import dev.outboxer.sample.OrderRequest;
import dev.outboxer.sample.OrderService;
import dev.outboxer.sample.PlacedOrder;
import dev.outboxer.sample.PurchaseOrder;
import dev.outboxer.sample.ReceivedEvent;
import dev.outboxer.sample.ReceivedEvents;
import dev.outboxer.sample.ShippingPartner;
import dev.outboxer.sample.SimulatedFailure;
import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import javax.naming.InitialContext;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.Test;

/**
 * What the sample application must do on any server and JPA provider, inside the server: run by
 * {@link OrdersOnEclipseLinkIT} and {@link OrdersOnHibernateIT} on Open Liberty, and by it-wildfly's
 * {@code OrdersOnWildFlyIT}, against PostgreSQL (XA) and the server's JMS broker. Every test uses
 * customers of its own, so events of other tests (or of an earlier deployment, still on the queues)
 * never count. Shared with it-wildfly through this module's test-jar: nothing here may name a
 * server's API.
 */
abstract class OrderFlowContract {

  static final Duration DELIVERY = Duration.ofSeconds(60);

  @Inject OrderService orders;
  @Inject OrderDesk desk;
  @Inject ReceivedEvents received;
  @Inject ShippingPartner shipping;
  @Inject OutboxAdmin admin;
  @Inject OutboxTables tables;

  /**
   * Outboxer's counter {@code name} tagged {@code outbox}, as the server's metrics registry holds it
   * (0 before its first increment): MicroProfile Metrics on Open Liberty, Micrometer on WildFly. Empty
   * where the server gives applications no registry: the counter checks below are then left out, the
   * rest still holds.
   */
  protected abstract OptionalLong outboxCounter(String name, String outbox);

  /**
   * Asserts that the counter moved by exactly {@code delta} since {@code before} (when the server has
   * one). Waits a little for it: a batch's counters are updated after its transaction committed, so
   * they may trail the rows the test has just seen.
   */
  void assertCounter(String name, String outbox, OptionalLong before, long delta) {
    if (before.isPresent()) {
      eventually(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(outboxCounter(name, outbox).orElseThrow())
          .as("%s{outbox=%s}", name, outbox).isEqualTo(before.getAsLong() + delta));
    }
  }

  static String customer(String hint) {
    return hint + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  /** Awaitility polling on the test thread: container-managed persistence needs a managed thread. */
  static ConditionFactory eventually(Duration atMost) {
    return await().atMost(atMost).pollInSameThread().pollInterval(Duration.ofMillis(100));
  }

  List<ReceivedEvent> events(String queue, String customer) {
    return received.find(queue, null, customer);
  }

  /** Waits until the order's events reached both queues and the shipping partner. */
  void awaitDelivered(PlacedOrder placed) {
    eventually(DELIVERY).untilAsserted(() -> {
      assertThat(events("orders", placed.customer())).extracting(ReceivedEvent::outboxId).contains(placed.orderPlacedMessageId());
      assertThat(events("audit", placed.customer())).extracting(ReceivedEvent::outboxId).contains(placed.auditMessageId());
      assertThat(shipping.accepted(placed.shipmentMessageId())).as("shipment %s accepted", placed.shipmentMessageId()).isTrue();
    });
  }

  void assertPublishedAndRelayed(PlacedOrder placed, String via) {
    Optional<PurchaseOrder> stored = orders.find(placed.orderId());
    assertThat(stored).as("order %s committed", placed.orderId()).isPresent();
    assertThat(stored.get().getPlacedVia()).isEqualTo(via);
    assertThat(stored.get().getCustomer()).isEqualTo(placed.customer());

    awaitDelivered(placed);
    ReceivedEvent orderPlaced = events("orders", placed.customer()).get(0);
    assertThat(orderPlaced.outboxId()).isEqualTo(placed.orderPlacedMessageId());
    assertThat(orderPlaced.type()).isEqualTo("OrderPlaced");
    assertThat(orderPlaced.outbox()).isEqualTo("orders");
    assertThat(orderPlaced.groupKey()).isEqualTo("customer:" + placed.customer());
    assertThat(orderPlaced.jmsxGroupId()).isEqualTo("customer:" + placed.customer());
    assertThat(orderPlaced.body()).contains("\"orderId\":" + placed.orderId(), "\"item\":\"" + placed.item() + "\"");
    ReceivedEvent audit = events("audit", placed.customer()).get(0);
    assertThat(audit.type()).isEqualTo("AuditEntry");
    assertThat(audit.outbox()).isEqualTo("audit");
    assertThat(audit.groupKey()).isNull();
    assertThat(audit.body()).contains("\"action\":\"placed via " + via + "\"");
    // Each event arrived once, and its row was deleted once the relay confirmed it.
    assertThat(events("orders", placed.customer())).hasSize(1);
    assertThat(events("audit", placed.customer())).hasSize(1);
    eventually(Duration.ofSeconds(10)).until(() -> tables.countMessages(
        placed.orderPlacedMessageId(), placed.auditMessageId(), placed.shipmentMessageId()) == 0);
  }

  @Test
  void order_placed_through_the_transactional_cdi_bean_commits_with_its_events_which_are_relayed() {
    OptionalLong publishedBefore = outboxCounter("outbox.published", "orders");
    PlacedOrder placed = orders.place(new OrderRequest(customer("cdi"), "book", 2));
    assertPublishedAndRelayed(placed, "cdi");
    assertCounter("outbox.published", "orders", publishedBefore, 1);
  }

  @Test
  void order_placed_through_the_stateless_ejb_commits_with_its_events_which_are_relayed() {
    PlacedOrder placed = desk.place(new OrderRequest(customer("ejb"), "lamp", 1));
    assertPublishedAndRelayed(placed, "ejb");
  }

  @Test
  void failure_after_publishing_in_the_cdi_bean_leaves_neither_the_order_nor_its_events() {
    String customer = customer("cdi-rollback");
    assertRolledBack(customer, () -> orders.placeThenFail(new OrderRequest(customer, "vase", 1)),
        () -> orders.place(new OrderRequest(customer, "vase", 2)));
  }

  @Test
  void failure_after_publishing_in_the_ejb_leaves_neither_the_order_nor_its_events() {
    String customer = customer("ejb-rollback");
    assertRolledBack(customer, () -> desk.placeThenFail(new OrderRequest(customer, "chair", 1)),
        () -> desk.place(new OrderRequest(customer, "chair", 2)));
  }

  private void assertRolledBack(String customer, Callable<PlacedOrder> failing, Callable<PlacedOrder> committing)
      throws RuntimeException {
    OptionalLong publishedBefore = outboxCounter("outbox.published", "orders");
    SimulatedFailure failure = catchThrowableOfType(SimulatedFailure.class, failing::call);
    assertThat(failure).as("the bean threw the simulated failure").isNotNull();
    PlacedOrder attempted = failure.attempted();
    assertThat(attempted.orderPlacedMessageId()).as("publish returned ids inside the transaction").isPositive();

    assertThat(orders.find(attempted.orderId())).as("rolled-back order").isEmpty();
    assertThat(orders.byCustomer(customer)).isEmpty();
    assertThat(tables.countMessages(attempted.orderPlacedMessageId(), attempted.auditMessageId(),
        attempted.shipmentMessageId())).as("rows of the rolled-back messages").isZero();
    assertCounter("outbox.published", "orders", publishedBefore, 0);

    // A committed order of the same customer afterwards: its events come after anything of the
    // same group (orders) or outbox (audit, total order) published before, so once they are here,
    // a leaked event of the rolled-back order would be here too.
    PlacedOrder committed;
    try {
      committed = committing.call();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    awaitDelivered(committed);
    assertThat(events("orders", customer)).extracting(ReceivedEvent::outboxId).containsExactly(committed.orderPlacedMessageId());
    assertThat(events("audit", customer)).extracting(ReceivedEvent::outboxId).containsExactly(committed.auditMessageId());
    assertThat(shipping.accepted(attempted.shipmentMessageId())).isFalse();
    assertThat(orders.byCustomer(customer)).extracting(PurchaseOrder::getId).containsExactly(committed.orderId());
  }

  @Test
  void events_of_each_customer_arrive_in_the_order_they_were_placed_while_many_customers_publish_at_once()
      throws Exception {
    int customers = 16;
    int ordersEach = 6;
    ManagedExecutorService executor = InitialContext.doLookup("java:comp/DefaultManagedExecutorService");
    List<Future<List<PlacedOrder>>> publishers = new ArrayList<>();
    for (int c = 0; c < customers; c++) {
      String customer = customer("group" + c);
      boolean viaEjb = c % 2 == 1;
      publishers.add(executor.submit(() -> {
        List<PlacedOrder> placed = new ArrayList<>();
        for (int n = 0; n < ordersEach; n++) {
          OrderRequest request = new OrderRequest(customer, "item-" + n, n + 1);
          placed.add(viaEjb ? desk.place(request) : orders.place(request));
        }
        return placed;
      }));
    }
    Map<String, List<PlacedOrder>> byCustomer = new java.util.LinkedHashMap<>();
    for (Future<List<PlacedOrder>> publisher : publishers) {
      List<PlacedOrder> placed = publisher.get(120, TimeUnit.SECONDS);
      byCustomer.put(placed.get(0).customer(), placed);
    }

    eventually(DELIVERY).untilAsserted(() -> byCustomer.forEach((customer, placed) -> {
      assertThat(events("orders", customer)).as("order events of %s", customer).hasSizeGreaterThanOrEqualTo(ordersEach);
      assertThat(events("audit", customer)).as("audit events of %s", customer).hasSizeGreaterThanOrEqualTo(ordersEach);
    }));
    byCustomer.forEach((customer, placed) -> {
      List<ReceivedEvent> orderEvents = events("orders", customer);
      // Exactly the published ids, each once, in publish order: per group (JMSXGroupID) order holds.
      assertThat(orderEvents).extracting(ReceivedEvent::outboxId)
          .as("order events of %s in arrival order", customer)
          .containsExactlyElementsOf(placed.stream().map(PlacedOrder::orderPlacedMessageId).toList());
      assertThat(orderEvents).extracting(ReceivedEvent::jmsxGroupId).containsOnly("customer:" + customer);
      for (int n = 0; n < placed.size(); n++) {
        assertThat(orderEvents.get(n).body()).contains("\"orderId\":" + placed.get(n).orderId());
      }
      assertThat(events("audit", customer)).extracting(ReceivedEvent::outboxId)
          .as("audit events of %s in arrival order", customer)
          .containsExactlyElementsOf(placed.stream().map(PlacedOrder::auditMessageId).toList());
    });
    // Many groups over 4 partitions: arrival interleaves groups, it is not one group after another.
    List<String> arrivalGroups = received.find("orders", null, null).stream().map(ReceivedEvent::groupKey)
        .filter(key -> byCustomer.keySet().stream().anyMatch(customer -> key.equals("customer:" + customer))).toList();
    assertThat(switches(arrivalGroups)).as("group changes in arrival order").isGreaterThan(customers);
  }

  private static int switches(List<String> sequence) {
    int switches = 0;
    for (int i = 1; i < sequence.size(); i++) {
      if (!sequence.get(i).equals(sequence.get(i - 1))) {
        switches++;
      }
    }
    return switches;
  }

  @Test
  void audit_entries_of_sequentially_placed_orders_arrive_in_one_total_order() {
    List<String> customers = List.of(customer("total-a"), customer("total-b"), customer("total-c"));
    List<PlacedOrder> placed = new ArrayList<>();
    for (int n = 0; n < 12; n++) {
      String customer = customers.get(n % customers.size());
      OrderRequest request = new OrderRequest(customer, "page-" + n, 1);
      placed.add(n % 2 == 0 ? orders.place(request) : desk.place(request));
    }
    List<Long> expected = placed.stream().map(PlacedOrder::auditMessageId).toList();
    Function<ReceivedEvent, Boolean> ours = e -> customers.stream().anyMatch(c -> e.body().contains("\"customer\":\"" + c + "\""));
    eventually(DELIVERY).until(() -> received.find("audit", null, null).stream().filter(ours::apply).count() >= expected.size());
    assertThat(received.find("audit", null, null).stream().filter(ours::apply).map(ReceivedEvent::outboxId).toList())
        .containsExactlyElementsOf(expected);
  }

  @Test
  void a_refusing_relay_retries_with_backoff_then_dead_letters_after_max_attempts_and_retry_dead_delivers() {
    long deadBefore = admin.counts("shipping").dead();
    OptionalLong failedBefore = outboxCounter("outbox.failed.attempts", "shipping");
    OptionalLong deadLetteredBefore = outboxCounter("outbox.dead.lettered", "shipping");
    PlacedOrder placed;
    shipping.setAvailable(false);
    try {
      placed = orders.place(new OrderRequest(customer("outage"), "piano", 1));
      long id = placed.shipmentMessageId();
      // While it is being retried it is pending and counted as retrying.
      eventually(Duration.ofSeconds(20)).until(() -> admin.counts("shipping").retrying() >= 1);
      // outbox.shipping.max-attempts=3: dead after the third failure, not before.
      eventually(Duration.ofSeconds(30)).until(() -> admin.dead("shipping", 100).stream().anyMatch(d -> d.id() == id));
      DeadMessage dead = admin.dead("shipping", 100).stream().filter(d -> d.id() == id).findFirst().orElseThrow();
      assertThat(dead.attempts()).isEqualTo(3);
      assertThat(dead.type()).isEqualTo("ShipmentRequested");
      assertThat(dead.groupKey()).isEqualTo("order:" + placed.orderId());
      assertThat(dead.lastError()).contains("simulated outage", "request " + id + " refused, attempt 3");
      assertThat(dead.lastAttemptAt()).isAfter(dead.createdAt());
      assertThat(admin.counts("shipping").dead()).isEqualTo(deadBefore + 1);
      assertCounter("outbox.failed.attempts", "shipping", failedBefore, 3);
      assertCounter("outbox.dead.lettered", "shipping", deadLetteredBefore, 1);
      assertThat(shipping.accepted(id)).isFalse();
      // The other outboxes of the same order were not held up by the failing relay.
      eventually(DELIVERY).untilAsserted(() -> {
        assertThat(events("orders", placed.customer())).extracting(ReceivedEvent::outboxId).contains(placed.orderPlacedMessageId());
        assertThat(events("audit", placed.customer())).extracting(ReceivedEvent::outboxId).contains(placed.auditMessageId());
      });
    } finally {
      shipping.setAvailable(true);
    }
    long id = placed.shipmentMessageId();
    String group = "order:" + placed.orderId();
    assertThat(admin.retryDead("shipping", id)).isEqualTo(1);
    // A revived message goes out as a new message: same group and payload, a new (higher) id.
    eventually(DELIVERY).until(() -> shipping.accepted().stream().anyMatch(s -> group.equals(s.groupKey())));
    ShippingPartner.Shipment revived = shipping.accepted().stream().filter(s -> group.equals(s.groupKey()))
        .findFirst().orElseThrow();
    assertThat(revived.messageId()).as("the revived message's new id").isGreaterThan(id);
    assertThat(revived.request()).contains("\"orderId\":" + placed.orderId());
    assertThat(shipping.accepted(id)).as("the old id is gone").isFalse();
    assertThat(admin.counts("shipping").dead()).isEqualTo(deadBefore);
    eventually(Duration.ofSeconds(10)).until(() -> tables.countMessages(id, revived.messageId()) == 0);
  }
}
