package dev.outboxer.jms;

import static dev.outboxer.jms.JmsRelayTest.ids;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.OutboxAdmin;
import dev.outboxer.jms.narayana.BrokerFirstTransactionHelper;
import dev.outboxer.jms.narayana.ForwardingXAResource;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Named;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.transaction.Synchronization;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import org.apache.activemq.artemis.jms.client.ActiveMQXAConnectionFactory;
import org.jboss.narayana.jta.jms.ConnectionFactoryProxy;
import org.jboss.narayana.jta.jms.TransactionHelper;
import org.junit.jupiter.api.Test;

/**
 * A node that stops between the two commits of a batch (killed and recovered later, or paused)
 * must not let the group's next messages overtake the batch, with the README's Java SE wiring
 * ({@link BrokerFirstTransactionHelper}).
 *
 * <p>Node A relays messages 1-3 of one group through the JMS relay over XA (Artemis + PostgreSQL)
 * and stops between its two commits, whichever comes first. Node B then gets messages 4-5 to relay.
 * With the database committed first (Narayana's default order: the claim enlisted it first), the
 * partition is free while A's messages wait prepared in the broker: B relays 4-5 and the consumer
 * receives 4, 5, 1, 2, 3 (what the long JMS chaos run found). With the broker committed first, A's
 * prepared database branch still holds the partition: B waits, and the consumer receives 1-5 in
 * order, once.
 */
class JmsRelayCommitOrderXaTest {

  private static final Duration WAIT = Duration.ofSeconds(30);
  /** How long node A stays stopped: 20 of node B's poll intervals, ample time to overtake it. */
  private static final Duration STOPPED = Duration.ofSeconds(2);
  private static final String QUEUE = "outbox.orders";
  static final String HELD_FACTORY = "jms/heldXaFactory";

  @Test
  void a_node_stopped_between_its_two_commits_does_not_let_the_group_overtake_its_batch() throws Exception {
    Map<String, String> configA = new LinkedHashMap<>();
    JmsRelayThroughOutboxTest.outboxConfig(configA, "orders", 1, HELD_FACTORY, "jms/orders");
    Map<String, String> configB = new LinkedHashMap<>();
    JmsRelayThroughOutboxTest.outboxConfig(configB, "orders", 1, OutboxMessaging.XA_FACTORY, "jms/orders");
    StopBetweenCommits stop = StopBetweenCommits.arm();

    try (EmbeddedArtemis broker = EmbeddedArtemis.start();
        OutboxTestContainer nodeA = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
            .config(configA).beans(OutboxMessaging.class, HeldBrokerFactory.class).start()) {
      broker.createQueue(QUEUE);
      List<Long> published = new ArrayList<>(JmsRelayStaleNodeXaTest.publish(nodeA, 0, 3));
      assertThat(stop.reached.await(WAIT.toMillis(), TimeUnit.MILLISECONDS))
          .as("node A relayed its batch and stopped between its two commits").isTrue();

      try (OutboxTestContainer nodeB = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
          .keepSchema().config(configB).beans(OutboxMessaging.class).start()) {
        published.addAll(JmsRelayStaleNodeXaTest.publish(nodeB, 3, 2));
        List<Message> received = new ArrayList<>(broker.receive(QUEUE, 5, STOPPED.toMillis()));
        stop.resume();
        assertThat(stop.resumed.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).as("node A finished its commit")
            .isTrue();
        OutboxAdmin admin = nodeB.select(OutboxAdmin.class);
        await().atMost(WAIT).until(() -> admin.counts("orders").pending() == 0);
        await().atMost(WAIT).until(() -> {
          received.addAll(broker.receive(QUEUE, published.size() - received.size(), 100));
          return received.size() >= published.size();
        });
        assertThat(ids(received)).as("the group in publishing order, each message once").isEqualTo(published);
        assertThat(broker.receive(QUEUE, 1, 500)).isEmpty();
      }
    } finally {
      stop.resume();
    }
  }

  /** Node A's connection factory: the README's Java SE wiring, with the stop between commits put in. */
  @ApplicationScoped
  public static class HeldBrokerFactory {
    private ActiveMQXAConnectionFactory xaFactory;

    @Produces
    @Named(HELD_FACTORY)
    @ApplicationScoped
    ConnectionFactory factory() {
      xaFactory = new ActiveMQXAConnectionFactory(EmbeddedArtemis.URL);
      return new ConnectionFactoryProxy(xaFactory, new StopBetweenCommits.Helper(new BrokerFirstTransactionHelper(
          com.arjuna.ats.jta.TransactionManager.transactionManager())));
    }

    @PreDestroy
    void close() {
      if (xaFactory != null) {
        xaFactory.close();
      }
    }
  }

  /**
   * Stops the first batch's transaction between its two commits: at the broker branch's commit,
   * after it when the database branch is still prepared (the broker commits first), before it when
   * the database has committed already (the database commits first).
   */
  static final class StopBetweenCommits {
    private static volatile StopBetweenCommits current;
    final CountDownLatch reached = new CountDownLatch(1);
    final CountDownLatch resumed = new CountDownLatch(1);
    private final CountDownLatch opened = new CountDownLatch(1);
    private final AtomicBoolean armed = new AtomicBoolean(true);

    static StopBetweenCommits arm() {
      current = new StopBetweenCommits();
      return current;
    }

    void resume() {
      opened.countDown();
    }

    private void stop() throws XAException {
      reached.countDown();
      try {
        if (!opened.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
          throw new IllegalStateException("the test never resumed node A");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new XAException(XAException.XAER_RMFAIL);
      }
    }

    private static boolean databaseBranchPrepared() {
      try (Connection connection = TestDatabase.POSTGRESQL.connect();
          Statement statement = connection.createStatement();
          ResultSet rows = statement.executeQuery(
              "SELECT count(*) FROM pg_prepared_xacts WHERE database = current_database()")) {
        rows.next();
        return rows.getInt(1) > 0;
      } catch (Exception e) {
        throw new IllegalStateException("cannot look at the prepared transactions", e);
      }
    }

    /** Wraps the first XA session's resource; passes everything else through. */
    static final class Helper implements TransactionHelper {
      private final TransactionHelper delegate;
      private final Map<XAResource, XAResource> wrapped = Collections.synchronizedMap(new IdentityHashMap<>());

      Helper(TransactionHelper delegate) {
        this.delegate = delegate;
      }

      @Override
      public boolean isTransactionAvailable() throws JMSException {
        return delegate.isTransactionAvailable();
      }

      @Override
      public void registerSynchronization(Synchronization synchronization) throws JMSException {
        delegate.registerSynchronization(synchronization);
      }

      @Override
      public void registerXAResource(XAResource resource) throws JMSException {
        StopBetweenCommits stop = current;
        XAResource enlisted = stop != null && stop.armed.getAndSet(false) ? new Stopping(resource, stop) : resource;
        wrapped.put(resource, enlisted);
        delegate.registerXAResource(enlisted);
      }

      @Override
      public void deregisterXAResource(XAResource resource) throws JMSException {
        XAResource enlisted = wrapped.remove(resource);
        delegate.deregisterXAResource(enlisted != null ? enlisted : resource);
      }
    }

    /** Stops between the two branches' commits: before the broker's, or after it if the database's was prepared. */
    private static final class Stopping extends ForwardingXAResource {
      private final StopBetweenCommits stop;

      Stopping(XAResource delegate, StopBetweenCommits stop) {
        super(delegate);
        this.stop = stop;
      }

      @Override
      public void commit(Xid xid, boolean onePhase) throws XAException {
        if (databaseBranchPrepared()) {
          super.commit(xid, onePhase);
          stop.stop();
        } else {
          stop.stop();
          super.commit(xid, onePhase);
        }
        stop.resumed.countDown();
      }
    }
  }
}
