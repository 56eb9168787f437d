package dev.outboxer.jms;

import dev.outboxer.testing.OutboxMetricsProbe;
import static dev.outboxer.jms.JmsMessageProperties.JMSX_GROUP_ID;
import static dev.outboxer.jms.JmsMessageProperties.OUTBOX_CONTENT_TYPE;
import static dev.outboxer.jms.JmsMessageProperties.OUTBOX_GROUP_KEY;
import static dev.outboxer.jms.JmsMessageProperties.OUTBOX_ID;
import static dev.outboxer.jms.JmsMessageProperties.OUTBOX_NAME;
import static dev.outboxer.jms.JmsMessageProperties.OUTBOX_TYPE;
import static dev.outboxer.jms.JmsRelayTest.ids;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.DeadMessage;
import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.OutboxCounts;
import dev.outboxer.cdi.internal.metrics.OutboxMetrics;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import jakarta.jms.Message;
import jakarta.jms.TextMessage;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The JMS relay driven end to end by the real core: messages published through {@link Outbox} in
 * a JTA transaction on PostgreSQL (XA), relayed by the partition workers with {@code
 * outbox.<name>.relay=jms} to an embedded Artemis broker, read back with a real JMS consumer. The
 * connection factories are Narayana's {@code ConnectionFactoryProxy} over Artemis' XA factory, so
 * every batch commits in two phases across PostgreSQL and Artemis.
 *
 * <p>Each test has its own outbox and queue: {@code orders} (4 partitions), {@code payments} (its
 * factory lets a test act inside the worker's transaction, see {@link WorkerTransactionProbe}) and
 * {@code missing} (a destination the broker does not have, max-attempts=1).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JmsRelayThroughOutboxTest {

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String ORDERS_QUEUE = "outbox.orders";
  private static final String PAYMENTS_QUEUE = "outbox.payments";

  private EmbeddedArtemis broker;
  private OutboxTestContainer container;
  private Outbox outbox;
  private OutboxAdmin admin;
  private WorkerTransactionProbe probe;
  private OutboxMetricsProbe metrics;

  @BeforeAll
  void start() throws Exception {
    broker = EmbeddedArtemis.start();
    broker.createQueue(ORDERS_QUEUE);
    broker.createQueue(PAYMENTS_QUEUE);
    Map<String, String> config = new LinkedHashMap<>();
    outboxConfig(config, "orders", 4, OutboxMessaging.XA_FACTORY, "jms/orders");
    outboxConfig(config, "payments", 1, OutboxMessaging.PROBED_XA_FACTORY, "jms/payments");
    outboxConfig(config, "missing", 1, OutboxMessaging.XA_FACTORY, "jms/missing");
    config.put("outbox.missing.max-attempts", "1");
    container = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
        .config(config)
        .beans(OutboxMessaging.class, OutboxMetricsProbe.class)
        .start();
    outbox = container.select(Outbox.class);
    admin = container.select(OutboxAdmin.class);
    probe = container.select(OutboxMessaging.class).probe();
    metrics = container.select(OutboxMetricsProbe.class);
  }

  static void outboxConfig(
      Map<String, String> config, String name, int partitions, String factory, String destination) {
    config.put("outbox." + name + ".relay", "jms");
    config.put("outbox." + name + ".partitions", String.valueOf(partitions));
    config.put("outbox." + name + ".batch-size", "20");
    config.put("outbox." + name + ".poll-interval", "100ms");
    config.put("outbox." + name + ".max-poll-interval", "500ms");
    config.put("outbox." + name + ".jms.connection-factory", factory);
    config.put("outbox." + name + ".jms.destination", destination);
  }

  @AfterEach
  void disarmProbe() {
    if (probe != null) {
      probe.disarm();
    }
  }

  @AfterAll
  void stop() {
    // The container first: its workers stop and close their relays while the broker is still up.
    if (container != null) {
      container.close();
    }
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void messagesPublishedThroughTheOutboxArriveInGroupOrderWithTheirJmsProperties() throws Exception {
    Map<Long, OrderEvent> published = new HashMap<>();
    Map<String, List<Long>> publishedByGroup = new LinkedHashMap<>();
    List<Long> ungrouped = new ArrayList<>();
    for (int transaction = 0; transaction < 10; transaction++) {
      int base = transaction * 10;
      container.inTransaction(() -> {
        for (int i = 0; i < 10; i++) {
          // Six interleaved orders spread over the four partitions, and one unordered event.
          OrderEvent event = new OrderEvent(i == 9 ? null : "order-" + i % 6, base + i);
          long id = outbox.publish(event);
          published.put(id, event);
          if (event.order() == null) {
            ungrouped.add(id);
          } else {
            publishedByGroup.computeIfAbsent(event.order(), key -> new ArrayList<>()).add(id);
          }
        }
      });
    }

    List<Message> received = receive(ORDERS_QUEUE, published.size());

    // XA and no failure: each message exactly once.
    assertThat(ids(received)).hasSize(published.size())
        .containsExactlyInAnyOrderElementsOf(published.keySet());
    Map<String, List<Long>> receivedByGroup = new LinkedHashMap<>();
    List<Long> receivedUngrouped = new ArrayList<>();
    for (Message message : received) {
      long id = message.getLongProperty(OUTBOX_ID);
      OrderEvent event = published.get(id);
      assertThat(message.getJMSType()).isEqualTo("OrderEvent");
      assertThat(message.getStringProperty(OUTBOX_TYPE)).isEqualTo("OrderEvent");
      assertThat(message.getStringProperty(OUTBOX_NAME)).isEqualTo("orders");
      assertThat(message.getStringProperty(OUTBOX_CONTENT_TYPE)).isEqualTo("application/json");
      assertThat(message.getStringProperty(JmsMessageProperties.forHeader(OrderEvent.TENANT_HEADER)))
          .isEqualTo("acme");
      assertThat(message).isInstanceOf(TextMessage.class);
      assertThat(((TextMessage) message).getText())
          .contains("\"sequence\":" + event.sequence());
      if (event.order() == null) {
        assertThat(message.propertyExists(OUTBOX_GROUP_KEY)).isFalse();
        assertThat(message.getStringProperty(JMSX_GROUP_ID)).isNull();
        receivedUngrouped.add(id);
      } else {
        assertThat(message.getStringProperty(OUTBOX_GROUP_KEY)).isEqualTo(event.order());
        assertThat(message.getStringProperty(JMSX_GROUP_ID)).isEqualTo(event.order());
        receivedByGroup.computeIfAbsent(event.order(), key -> new ArrayList<>()).add(id);
      }
    }
    assertThat(receivedByGroup).isEqualTo(publishedByGroup);
    assertThat(receivedUngrouped).containsExactlyInAnyOrderElementsOf(ungrouped);

    await().atMost(WAIT).until(() -> admin.counts("orders").pending() == 0);
    await().atMost(WAIT)
        .until(() -> metrics.count(OutboxMetrics.RELAYED, "orders") == published.size());
    assertThat(metrics.count(OutboxMetrics.FAILED_ATTEMPTS, "orders")).isZero();
    assertThat(metrics.timed(OutboxMetrics.RELAY_BATCH, "orders")).as("relay batches timed").isPositive();
  }

  @Test
  void theWorkersCommitMakesTheSendAndTheRowDeletionVisibleTogether() throws Exception {
    CommitGate gate = new CommitGate();
    AtomicReference<Synchronization> once = new AtomicReference<>(gate);
    probe.registerOnEachConnection(() -> once.getAndSet(null));

    long id = container.inTransaction(() -> outbox.publish("payments", new OrderEvent("payment-1", 1)));

    assertThat(gate.awaitCommit(WAIT)).as("the worker reached its commit").isTrue();
    try {
      // The relay has sent and confirmed the message and the worker has deleted its row, but the
      // transaction has not committed: neither is visible from outside.
      assertThat(broker.messageCount(PAYMENTS_QUEUE)).isZero();
      assertThat(broker.receive(PAYMENTS_QUEUE, 1, 200)).isEmpty();
      assertThat(admin.counts("payments").pending()).isEqualTo(1);
    } finally {
      gate.open();
    }

    assertThat(ids(broker.receive(PAYMENTS_QUEUE, 1, WAIT.toMillis()))).containsExactly(id);
    await().atMost(WAIT).until(() -> admin.counts("payments").pending() == 0);
    assertThat(gate.completion()).isEqualTo(Status.STATUS_COMMITTED);
    assertThat(broker.receive(PAYMENTS_QUEUE, 1, 200)).as("no second copy").isEmpty();
  }

  @Test
  void aCommitThatFailsAfterTheSendLeavesTheRowPendingAndTheQueueWithoutTheMessage()
      throws Exception {
    AtomicInteger rolledBack = new AtomicInteger();
    probe.registerOnEachConnection(() -> new FailingCommit(rolledBack));

    long id = container.inTransaction(() -> outbox.publish("payments", new OrderEvent("payment-2", 1)));

    // The relay sends and confirms, the commit fails, the worker tries again by itself: twice at
    // least, so that a message that had slipped through would be on the queue by now.
    await().atMost(WAIT).until(() -> rolledBack.get() >= 2);
    assertThat(broker.messageCount(PAYMENTS_QUEUE)).isZero();
    assertThat(broker.receive(PAYMENTS_QUEUE, 1, 200)).isEmpty();
    OutboxCounts counts = admin.counts("payments");
    assertThat(counts.pending()).isEqualTo(1);
    assertThat(counts.dead()).isZero();

    // The database recovers: the next batch commits, and the message arrives once, not once per
    // failed commit (the broker rolled its XA branch back each time).
    probe.disarm();
    assertThat(ids(broker.receive(PAYMENTS_QUEUE, 1, WAIT.toMillis()))).containsExactly(id);
    await().atMost(WAIT).until(() -> admin.counts("payments").pending() == 0);
    assertThat(broker.receive(PAYMENTS_QUEUE, 1, 300)).as("no duplicate").isEmpty();
  }

  @Test
  void aDestinationThatDoesNotExistKillsTheMessagesWithAnErrorNamingIt() throws Exception {
    List<Long> ids = container.inTransaction(() -> List.of(
        outbox.publish("missing", new OrderEvent("lost-order", 1)),
        outbox.publish("missing", new OrderEvent("lost-order", 2))));

    // max-attempts=1: the first failure kills each message, and its group moves on to the next.
    await().atMost(WAIT).until(() -> admin.dead("missing", 10).size() == 2);
    List<DeadMessage> dead = admin.dead("missing", 10);
    assertThat(dead).extracting(DeadMessage::id).isEqualTo(ids);
    for (DeadMessage message : dead) {
      assertThat(message.attempts()).isEqualTo(1);
      assertThat(message.groupKey()).isEqualTo("lost-order");
      assertThat(message.lastError())
          .startsWith(JmsRelayException.class.getName())
          .contains("Outbox 'missing' could not send message " + message.id())
          .contains("queue 'no.such.queue'")
          .contains("outbox.missing.jms.destination=jms/missing");
    }
    OutboxCounts counts = admin.counts("missing");
    assertThat(counts.pending()).isZero();
    assertThat(counts.dead()).isEqualTo(2);
    await().atMost(WAIT)
        .until(() -> metrics.count(OutboxMetrics.DEAD_LETTERED, "missing") == 2);
    assertThat(metrics.count(OutboxMetrics.FAILED_ATTEMPTS, "missing")).isEqualTo(2);

    // Fixed on the broker: revived, they go out in their old order as new messages (new ids
    // above the old ones, so a consumer that drops ids at or below the last one it saw takes them).
    broker.createQueue("no.such.queue");
    assertThat(admin.retryDead("missing")).isEqualTo(2);
    List<Message> revived = receive("no.such.queue", 2);
    List<Long> newIds = ids(revived);
    assertThat(newIds).isSorted().doesNotHaveDuplicates()
        .allSatisfy(newId -> assertThat(newId).isGreaterThan(ids.get(1)));
    assertThat(((TextMessage) revived.get(0)).getText()).contains("\"sequence\":1");
    assertThat(((TextMessage) revived.get(1)).getText()).contains("\"sequence\":2");
    await().atMost(WAIT).until(() -> admin.counts("missing").dead() == 0);
  }

  /** Receives until {@code count} messages arrived, waiting {@link #WAIT} at most. */
  private List<Message> receive(String queue, int count) {
    List<Message> received = new ArrayList<>();
    await().atMost(WAIT).until(() -> {
      received.addAll(broker.receive(queue, count - received.size(), 100));
      return received.size() >= count;
    });
    return received;
  }

  /**
   * Holds the worker at its commit, after the relay sent and the rows were deleted, until the
   * test opens it; then records how the transaction ended.
   */
  private static final class CommitGate implements Synchronization {
    private final CountDownLatch reached = new CountDownLatch(1);
    private final CountDownLatch opened = new CountDownLatch(1);
    private final AtomicInteger completion = new AtomicInteger(-1);
    private final CountDownLatch completed = new CountDownLatch(1);

    @Override
    public void beforeCompletion() {
      reached.countDown();
      try {
        if (!opened.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
          throw new IllegalStateException("the test never opened the commit gate");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted at the commit gate", e);
      }
    }

    @Override
    public void afterCompletion(int status) {
      completion.set(status);
      completed.countDown();
    }

    boolean awaitCommit(Duration timeout) throws InterruptedException {
      return reached.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    void open() {
      opened.countDown();
    }

    int completion() throws InterruptedException {
      assertThat(completed.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
      return completion.get();
    }
  }

  /** Makes the worker's commit fail after the relay sent, as a database failing at commit would. */
  private static final class FailingCommit implements Synchronization {
    private final AtomicInteger rolledBack;

    FailingCommit(AtomicInteger rolledBack) {
      this.rolledBack = rolledBack;
    }

    @Override
    public void beforeCompletion() {
      throw new IllegalStateException("induced: the worker's commit fails after the send");
    }

    @Override
    public void afterCompletion(int status) {
      if (status == Status.STATUS_ROLLEDBACK) {
        rolledBack.incrementAndGet();
      }
    }
  }
}
