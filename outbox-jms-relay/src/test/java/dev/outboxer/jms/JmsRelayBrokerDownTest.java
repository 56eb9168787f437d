package dev.outboxer.jms;

import dev.outboxer.testing.TestRelayBatch;
import static dev.outboxer.jms.JmsRelayTest.ids;
import static dev.outboxer.jms.JmsRelayTest.relay;
import static dev.outboxer.jms.TestRecords.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.Ordering;
import jakarta.jms.JMSException;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionManager;
import org.apache.activemq.artemis.jms.client.ActiveMQConnectionFactory;
import org.apache.activemq.artemis.jms.client.ActiveMQXAConnectionFactory;
import org.jboss.narayana.jta.jms.ConnectionFactoryProxy;
import org.jboss.narayana.jta.jms.TransactionHelperImpl;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A broker that is down fails the whole batch; the relay holds nothing that outlives it. */
class JmsRelayBrokerDownTest {

  private static EmbeddedArtemis broker;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = EmbeddedArtemis.start();
  }

  @AfterAll
  static void stopBroker() throws Exception {
    if (broker != null) {
      broker.close();
    }
  }

  @Test
  void aStoppedBrokerFailsTheBatchAndTheSameRelayDeliversOnceItIsBack() throws Exception {
    try (ActiveMQConnectionFactory factory = new ActiveMQConnectionFactory(EmbeddedArtemis.URL)) {
      JmsRelay relay = relay(factory, "after.restart");
      restartWith(() -> {
        TestRelayBatch batch =
            TestRelayBatch.of(Ordering.GROUP, json(1, "a", "T", "{}"), json(2, "b", "T", "{}"));

        assertThatThrownBy(() -> relay.relay(batch))
            .isInstanceOf(JmsRelayException.class)
            .hasCauseInstanceOf(JMSException.class)
            .hasMessageContaining("Outbox 'orders' cannot connect to the JMS broker")
            .hasMessageContaining("test factory")
            .hasMessageContaining("retried with backoff");
        assertThat(batch.outcomes()).as("nothing reported: the worker fails them all").isEmpty();
      });
      broker.createQueue("after.restart");

      TestRelayBatch retry = TestRelayBatch.of(Ordering.GROUP, json(1, "a", "T", "{}"));
      relay.relay(retry);

      assertThat(retry.confirmed(retry.records().get(0))).isTrue();
      assertThat(ids(broker.receive("after.restart", 1, 1000))).containsExactly(1L);
    }
  }

  @Test
  void aStoppedBrokerFailsTheBatchInsideTheWorkersXaTransaction() throws Exception {
    TransactionManager tm = com.arjuna.ats.jta.TransactionManager.transactionManager();
    try (ActiveMQXAConnectionFactory xaFactory = new ActiveMQXAConnectionFactory(EmbeddedArtemis.URL)) {
      JmsRelay relay = relay(new ConnectionFactoryProxy(xaFactory, new TransactionHelperImpl(tm)), "xa.down");
      restartWith(() -> {
        TestRelayBatch batch = TestRelayBatch.of(Ordering.GROUP, json(3, "a", "T", "{}"));
        tm.begin();
        try {
          assertThatThrownBy(() -> relay.relay(batch))
              .isInstanceOf(JmsRelayException.class)
              .hasMessageContaining("cannot connect");
          assertThat(batch.outcomes()).isEmpty();
        } finally {
          tm.rollback(); // what the worker does with a failed batch
        }
        assertThat(tm.getStatus()).isEqualTo(Status.STATUS_NO_TRANSACTION);
      });
    }
  }

  /** Runs the check while the broker is stopped, then starts a fresh broker. */
  private static void restartWith(ThrowingRunnable whileDown) throws Exception {
    broker.close();
    broker = null;
    try {
      whileDown.run();
    } finally {
      broker = EmbeddedArtemis.start();
    }
  }

  @FunctionalInterface
  private interface ThrowingRunnable {
    void run() throws Exception;
  }
}
