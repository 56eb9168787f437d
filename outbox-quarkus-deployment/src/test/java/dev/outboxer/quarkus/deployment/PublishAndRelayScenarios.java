package dev.outboxer.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outboxer.DeadMessage;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.cdi.internal.metrics.OutboxMetrics;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import dev.outboxer.testing.TestOrder;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.health.SmallRyeHealthReporter;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Outboxer in a Quarkus application (JVM mode), the scenarios each database runs (one application
 * per subclass, which names the database): {@code @Inject Outbox} in an
 * {@code @ApplicationScoped @Transactional} bean writes in the caller's Narayana transaction through
 * Hibernate ORM on Quarkus' Agroal data source; a rollback writes nothing; the workers run on
 * Quarkus' executor and relay through a custom {@code @Named} relay and the local relay, in order
 * per group with concurrent publishers; the counters reach Quarkus' Micrometer registry and the
 * readiness checks of outbox-health SmallRye Health; an outbox in total order relays in publish
 * order across groups; a refused message is retried, dead after {@code max-attempts}, and relayed
 * again after {@link OutboxAdmin#retryDead}. The partition count comes from an environment variable
 * (OUTBOX_ORDERS_PARTITIONS, set for the tests in the pom).
 */
abstract class PublishAndRelayScenarios {

  /** The application of a subclass: the scenarios' beans on {@code database}. */
  static QuarkusUnitTest application(TestDatabase database, Class<? extends PublishAndRelayScenarios> test) {
    return QuarkusTestApplication.on(database, PublishAndRelayScenarios.class, test, OrderPlaced.class,
            ShipmentRequested.class, OrderService.class, ShipmentHandler.class, ThreadRecordingRelay.class,
            RecordingRelay.class, TestOrder.class, AuditEntry.class, AuditService.class)
        .overrideConfigKey("outbox.orders.relay", "thread-recording")
        .overrideConfigKey("outbox.shipping.relay", "local")
        // total order: one sequence for the whole outbox, whatever the group
        .overrideConfigKey("outbox.audit.relay", "recording")
        .overrideConfigKey("outbox.audit.ordering", "total")
        // retries with a short backoff, dead after the third failed attempt
        .overrideConfigKey("outbox.billing.relay", "recording")
        .overrideConfigKey("outbox.billing.partitions", "2")
        .overrideConfigKey("outbox.billing.max-attempts", "3")
        .overrideConfigKey("outbox.billing.backoff.min", "20ms")
        .overrideConfigKey("outbox.billing.backoff.max", "100ms");
  }

  /** The database of the subclass's application. */
  abstract TestDatabase database();

  @Inject OrderService orders;
  @Inject AuditService audit;
  @Inject RecordingRelay relayed;
  @Inject ThreadRecordingRelay relay;
  @Inject ShipmentHandler shipments;
  @Inject MeterRegistry meters;
  @Inject SmallRyeHealthReporter health;
  @Inject OutboxAdmin admin;

  @Test
  void publishesInTheCallersTransactionAndRelaysOnQuarkusWorkerThreads() throws Exception {
    orders.place(1, "ada", 1, true, false);

    awaitConfirmedInGroup("ada", 1);
    OutboxRecord record = relayed.confirmed("orders").stream().filter(r -> "ada".equals(r.groupKey())).findFirst()
        .orElseThrow();
    assertThat(record.payloadText()).contains("\"orderId\":1,");
    awaitShipped(1);
    assertThat(shipments.shipped()).containsOnlyOnce(1L);
    assertThat(count("SELECT count(*) FROM test_order WHERE id = 1")).isEqualTo(1);
    // Quarkus' worker pool names its threads executor-thread-N: the workers did not start a pool of their own.
    assertThat(relay.threads()).isNotEmpty().allMatch(name -> name.startsWith("executor-thread-"));
    assertThat(shipments.threads()).isNotEmpty().allMatch(name -> name.startsWith("executor-thread-"));
  }

  @Test
  void aRollbackWritesNeitherTheOrderNorItsMessage() throws Exception {
    assertThatThrownBy(() -> orders.place(100, "bob", 1, true, true)).hasMessageContaining("simulated failure");
    // The next message of the same group commits; had the rolled-back one been written, the relay would get it first.
    orders.place(101, "bob", 2, true, false);

    awaitConfirmedInGroup("bob", 1);
    awaitShipped(101);
    assertThat(ids(relayed.confirmedIdsByGroup().get("bob"))).hasSize(1);
    assertThat(relayed.confirmed("orders")).filteredOn(r -> "bob".equals(r.groupKey()))
        .allMatch(r -> r.payloadText().contains("\"orderId\":101"));
    assertThat(shipments.shipped()).doesNotContain(100L);
    assertThat(count("SELECT count(*) FROM test_order WHERE id = 100")).isZero();
    assertThat(count("SELECT count(*) FROM outbox_message WHERE group_key IN ('bob', 'order-100')")).isZero();
  }

  @Test
  void keepsEachCustomersOrderWithConcurrentPublishers() throws Exception {
    int customers = 4;
    int ordersEach = 25;
    CountDownLatch start = new CountDownLatch(1);
    ExecutorService publishers = Executors.newFixedThreadPool(customers);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int c = 0; c < customers; c++) {
        String customer = "customer-" + c;
        long base = 1000L * (c + 1);
        done.add(publishers.submit((Callable<Void>) () -> {
          start.await();
          for (int sequence = 1; sequence <= ordersEach; sequence++) {
            orders.place(base + sequence, customer, sequence, false, false);
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> each : done) {
        each.get();
      }
    } finally {
      publishers.shutdownNow();
    }

    for (int c = 0; c < customers; c++) {
      String customer = "customer-" + c;
      awaitConfirmedInGroup(customer, ordersEach);
      List<Integer> sequences = relayed.confirmed("orders").stream().filter(r -> customer.equals(r.groupKey()))
          .map(r -> Integer.valueOf(r.payloadText().replaceAll(".*\"sequence\":(\\d+).*", "$1"))).toList();
      assertThat(sequences).as("the order of %s's events as relayed", customer)
          .isEqualTo(java.util.stream.IntStream.rangeClosed(1, ordersEach).boxed().toList());
    }
  }

  @Test
  void relaysAnOutboxInTotalOrderAcrossGroups() throws Exception {
    List<String> customers = List.of("total-a", "total-b", "total-c");
    List<Long> published = new ArrayList<>();
    for (int n = 0; n < 12; n++) {
      published.add(audit.record("audit", 5000 + n, customers.get(n % customers.size()), n));
    }

    await().atMost(Duration.ofSeconds(30)).until(() -> relayed.confirmed("audit").size() >= published.size());
    assertThat(relayed.confirmed("audit")).extracting(OutboxRecord::id).as("the audit outbox as relayed")
        .containsExactlyElementsOf(published);
  }

  @Test
  void retriesAFailingMessageThenDeadLettersItAndRetryDeadRelaysItAgain() throws Exception {
    String group = "refused-customer";
    relayed.failGroup(group);
    long id;
    try {
      id = audit.record("billing", 6000, group, 1);
      await().atMost(Duration.ofSeconds(30))
          .until(() -> admin.dead("billing", 100).stream().anyMatch(dead -> dead.id() == id));
      DeadMessage dead = admin.dead("billing", 100).stream().filter(d -> d.id() == id).findFirst().orElseThrow();
      // outbox.billing.max-attempts=3: handed three times (two retries after a backoff), dead after the third failure
      assertThat(dead.attempts()).isEqualTo(3);
      assertThat(relayed.handed()).filteredOn(r -> r.id() == id).hasSize(3);
      assertThat(dead.groupKey()).isEqualTo(group);
      assertThat(admin.counts("billing").dead()).isEqualTo(1);
      assertThat(ids(relayed.confirmedIdsByGroup().get(group))).isEmpty();
    } finally {
      relayed.recoverGroup(group);
    }

    assertThat(admin.retryDead("billing", id)).isEqualTo(1);

    // Revived as a new message: same group and payload, a new (higher) id, relayed this time.
    awaitConfirmedInGroup(group, 1);
    OutboxRecord revived = relayed.confirmed("billing").stream().filter(r -> group.equals(r.groupKey()))
        .findFirst().orElseThrow();
    assertThat(revived.id()).isGreaterThan(id);
    assertThat(revived.payloadText()).contains("\"orderId\":6000");
    assertThat(admin.counts("billing").dead()).isZero();
    await().atMost(Duration.ofSeconds(10))
        .until(() -> count("SELECT count(*) FROM outbox_message WHERE id IN (" + id + ", " + revived.id() + ")") == 0);
  }

  @Test
  void countsInQuarkusMicrometerAndIsReadyInSmallRyeHealth() throws Exception {
    orders.place(500, "eve", 1, false, false);
    awaitConfirmedInGroup("eve", 1);

    // The relayed counter moves once the worker's transaction has committed, just after the relay confirmed.
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (counted(OutboxMetrics.RELAYED) < 1 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(counted(OutboxMetrics.PUBLISHED)).isGreaterThanOrEqualTo(1);
    assertThat(counted(OutboxMetrics.RELAYED)).isGreaterThanOrEqualTo(1);
    String readiness = health.getReadiness().getPayload().toString();
    assertThat(readiness).contains("\"outbox-started\"").contains("\"status\":\"UP\"").doesNotContain("DOWN");
  }

  private double counted(String counter) {
    Counter found = meters.find(counter).tag("outbox", "orders").counter();
    return found == null ? 0 : found.count();
  }

  @Test
  void takesThePartitionCountFromAnEnvironmentVariable() throws Exception {
    assertThat(System.getenv("OUTBOX_ORDERS_PARTITIONS")).as("set by the pom for this test").isEqualTo("3");
    assertThat(count("SELECT count(*) FROM outbox_partition WHERE outbox = 'orders'")).isEqualTo(3);
  }

  private void awaitConfirmedInGroup(String group, int count) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (ids(relayed.confirmedIdsByGroup().get(group)).size() < count && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(ids(relayed.confirmedIdsByGroup().get(group))).as("confirmed in group %s", group).hasSize(count);
  }

  private void awaitShipped(long orderId) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!shipments.shipped().contains(orderId) && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(shipments.shipped()).contains(orderId);
  }

  private static List<Long> ids(List<Long> ids) {
    return ids == null ? List.of() : ids;
  }

  private long count(String sql) throws Exception {
    try (Connection connection = database().connect(); Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getLong(1);
    }
  }
}
