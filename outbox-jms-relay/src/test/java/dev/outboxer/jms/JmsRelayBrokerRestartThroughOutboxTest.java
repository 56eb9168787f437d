package dev.outboxer.jms;

import dev.outboxer.testing.OutboxMetricsProbe;
import static dev.outboxer.jms.JmsMessageProperties.OUTBOX_GROUP_KEY;
import static dev.outboxer.jms.JmsMessageProperties.OUTBOX_ID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.OutboxCounts;
import dev.outboxer.cdi.internal.metrics.OutboxMetrics;
import dev.outboxer.cdi.internal.work.Workers;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.activemq.artemis.core.postoffice.RoutingStatus;
import org.apache.activemq.artemis.core.server.ActiveMQServer;
import org.apache.activemq.artemis.core.server.ServerSession;
import org.apache.activemq.artemis.core.server.plugin.ActiveMQServerMessagePlugin;
import org.apache.activemq.artemis.core.transaction.Transaction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The broker goes down while the core's workers relay a backlog through the JMS relay, and comes
 * back: nothing is lost, each group keeps its order once duplicates are dropped by {@code
 * outboxId}, and the failed attempts show in the application's MetricRegistry.
 *
 * <p>The outbox uses Artemis' <b>plain</b> connection factory: sends are delivered before the
 * database commits (at-least-once), which is the mode in which a broker outage can produce
 * duplicates. (With an XA factory, a broker that dies between the two commit phases leaves the
 * batch in doubt on the broker until a transaction recovery manager resolves it, and the test
 * container runs none.) The broker keeps its messages in a journal, as a production broker does, so
 * what it had accepted before the stop is still there after the restart.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JmsRelayBrokerRestartThroughOutboxTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final String OUTBOX = "stream";
  private static final String QUEUE = "outbox.stream";
  private static final int GROUPS = 6;

  /** The broker goes down after it accepted this many relayed messages: mid-stream, mid-batch. */
  private final CrashAfter crash = new CrashAfter(QUEUE, 10);
  private Path journal;
  private EmbeddedArtemis broker;
  private OutboxTestContainer container;
  private Outbox outbox;
  private OutboxAdmin admin;
  private Workers workers;
  private OutboxMetricsProbe metrics;

  @BeforeAll
  void start(@TempDir Path brokerData) throws Exception {
    journal = brokerData;
    broker = EmbeddedArtemis.startPersistent(journal, crash);
    broker.createQueue(QUEUE);
    Map<String, String> config = new LinkedHashMap<>();
    JmsRelayThroughOutboxTest.outboxConfig(
        config, OUTBOX, 2, OutboxMessaging.PLAIN_FACTORY, "jms/stream");
    config.put("outbox." + OUTBOX + ".batch-size", "10");
    // Retries wait far longer than the test: only the test's clock steps bring them on.
    config.put("outbox." + OUTBOX + ".backoff.min", "30s");
    config.put("outbox." + OUTBOX + ".backoff.max", "60s");
    config.put("outbox." + OUTBOX + ".relay-timeout", "10s");
    container = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
        .config(config)
        .beans(OutboxMessaging.class, OutboxMetricsProbe.class)
        .start();
    outbox = container.select(Outbox.class);
    admin = container.select(OutboxAdmin.class);
    workers = container.select(Workers.class);
    metrics = container.select(OutboxMetricsProbe.class);
  }

  @AfterAll
  void stop() {
    if (container != null) {
      container.close();
    }
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void aBrokerStoppedMidStreamAndRestartedLosesNothingAndKeepsEachGroupsOrder() throws Exception {
    Map<String, List<Long>> published = new LinkedHashMap<>();
    List<Long> ungrouped = new ArrayList<>();
    List<Received> received = new ArrayList<>();

    // A backlog for the workers. After the broker accepted its 10th message it stops, from a
    // thread of its own, while the workers are still sending.
    publish(0, 15, published, ungrouped);
    crash.stopped().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    broker.close();
    broker = null;
    assertThat(admin.counts(OUTBOX).pending()).as("messages left when the broker went down")
        .isPositive();

    // More messages while it is down. Every attempt fails now, each one counted and retried later.
    publish(15, 5, published, ungrouped);
    await().atMost(WAIT)
        .until(() -> metrics.count(OutboxMetrics.FAILED_ATTEMPTS, OUTBOX) > 0);
    OutboxCounts whileDown = admin.counts(OUTBOX);
    assertThat(whileDown.retrying()).as("messages waiting for a retry while the broker is down")
        .isPositive();
    assertThat(whileDown.dead()).isZero();

    // Back on the same journal. Step the clock past the backoff and wake the workers instead of
    // waiting for it, until every message has arrived.
    broker = EmbeddedArtemis.startPersistent(journal);
    Set<Long> expected = new HashSet<>(ungrouped);
    published.values().forEach(expected::addAll);
    await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> {
      container.clock().advance(Duration.ofMinutes(1));
      workers.wakeAll(OUTBOX);
      received.addAll(Received.of(broker.receive(QUEUE, 1000, 100)));
      return Received.ids(received).containsAll(expected);
    });

    // At least once: every id arrived, possibly more than once; nothing that was not published.
    assertThat(Received.ids(received)).isEqualTo(expected);
    // Order: per group, the first arrival of each id is in publish order.
    Map<String, List<Long>> firstArrivals = new LinkedHashMap<>();
    List<Long> ungroupedArrivals = new ArrayList<>();
    Set<Long> seen = new HashSet<>();
    for (Received message : received) {
      if (!seen.add(message.id())) {
        continue; // a duplicate: dropped by outboxId, as a consumer does
      }
      if (message.group() == null) {
        ungroupedArrivals.add(message.id());
      } else {
        firstArrivals.computeIfAbsent(message.group(), key -> new ArrayList<>()).add(message.id());
      }
    }
    assertThat(firstArrivals).isEqualTo(published);
    assertThat(ungroupedArrivals).containsExactlyInAnyOrderElementsOf(ungrouped);

    await().atMost(WAIT).until(() -> admin.counts(OUTBOX).pending() == 0);
    assertThat(admin.counts(OUTBOX).dead()).isZero();
    // Each message was confirmed, and its row deleted, exactly once.
    await().atMost(WAIT)
        .until(() -> metrics.count(OutboxMetrics.RELAYED, OUTBOX) == expected.size());
    assertThat(metrics.count(OutboxMetrics.FAILED_ATTEMPTS, OUTBOX)).isPositive();
  }

  /**
   * Publishes {@code transactions} transactions of one message per group plus one unordered
   * message, numbering transactions from {@code first}.
   */
  private void publish(
      int first, int transactions, Map<String, List<Long>> published, List<Long> ungrouped)
      throws Exception {
    for (int transaction = first; transaction < first + transactions; transaction++) {
      int sequence = transaction * (GROUPS + 1);
      container.inTransaction(() -> {
        for (int group = 0; group < GROUPS; group++) {
          String order = "order-" + group;
          published.computeIfAbsent(order, key -> new ArrayList<>())
              .add(outbox.publish(OUTBOX, new OrderEvent(order, sequence + group)));
        }
        ungrouped.add(outbox.publish(OUTBOX, new OrderEvent(null, sequence + GROUPS)));
      });
    }
  }

  /**
   * A broker going down mid-stream: right after the broker accepted its {@code n}th message for the
   * queue, a thread of its own stops it (a broker cannot stop itself on the thread that handles a
   * send). The relay's sends in flight then fail as they do when a broker dies.
   */
  private static final class CrashAfter implements ActiveMQServerMessagePlugin {
    private final String address;
    private final int n;
    private final AtomicInteger accepted = new AtomicInteger();
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private volatile ActiveMQServer server;

    CrashAfter(String address, int n) {
      this.address = address;
      this.n = n;
    }

    @Override
    public void registered(ActiveMQServer server) {
      this.server = server;
    }

    @Override
    public void afterSend(ServerSession session, Transaction tx,
        org.apache.activemq.artemis.api.core.Message message, boolean direct,
        boolean noAutoCreateQueue, RoutingStatus result) {
      if (address.equals(message.getAddress()) && accepted.incrementAndGet() == n) {
        Thread crash = new Thread(() -> {
          try {
            server.stop();
            stopped.complete(null);
          } catch (Exception | Error e) {
            stopped.completeExceptionally(e);
          }
        }, "test-broker-crash");
        crash.setDaemon(true);
        crash.start();
      }
    }

    /** Completes when the broker has stopped. */
    CompletableFuture<Void> stopped() {
      return stopped;
    }
  }

  /** What the consumer needs of a message, read at once (the session closes after each receive). */
  private record Received(long id, String group) {
    static List<Received> of(List<Message> messages) throws JMSException {
      List<Received> received = new ArrayList<>();
      for (Message message : messages) {
        received.add(new Received(
            message.getLongProperty(OUTBOX_ID), message.getStringProperty(OUTBOX_GROUP_KEY)));
      }
      return received;
    }

    static Set<Long> ids(List<Received> received) {
      Set<Long> ids = new HashSet<>();
      received.forEach(message -> ids.add(message.id()));
      return ids;
    }
  }
}
