package dev.outboxer.jms;

import dev.outboxer.testing.TestRelayBatch;
import static dev.outboxer.jms.JmsRelayTest.ids;
import static dev.outboxer.jms.JmsRelayTest.relay;
import static dev.outboxer.jms.TestRecords.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.Ordering;
import dev.outboxer.spi.OutboxRecord;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.transaction.RollbackException;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionManager;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.LongStream;
import org.apache.activemq.artemis.jms.client.ActiveMQXAConnectionFactory;
import org.jboss.narayana.jta.jms.ConnectionFactoryProxy;
import org.jboss.narayana.jta.jms.TransactionHelperImpl;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The relay inside a real Narayana JTA transaction, as a core worker calls it: with a JTA-aware
 * (XA) connection factory the sends commit and roll back with the transaction; with a plain one
 * they are delivered at once.
 */
class JmsRelayTransactionTest {

  private static EmbeddedArtemis broker;
  private static TransactionManager tm;
  private static ActiveMQXAConnectionFactory xaFactory;
  private static ConnectionFactory jtaAwareFactory;

  @BeforeAll
  static void start() throws Exception {
    broker = EmbeddedArtemis.start();
    tm = com.arjuna.ats.jta.TransactionManager.transactionManager();
    xaFactory = new ActiveMQXAConnectionFactory(EmbeddedArtemis.URL);
    jtaAwareFactory = new ConnectionFactoryProxy(xaFactory, new TransactionHelperImpl(tm));
  }

  @AfterAll
  static void stop() throws Exception {
    xaFactory.close();
    broker.close();
  }

  @AfterEach
  void endLeftoverTransaction() throws Exception {
    if (tm.getStatus() != Status.STATUS_NO_TRANSACTION) {
      tm.rollback();
    }
  }

  @Test
  void withAnXaFactoryTheSendsBecomeVisibleOnlyWhenTheTransactionCommits() throws Exception {
    broker.createQueue("xa.commit");
    TestRelayBatch batch = TestRelayBatch.of(Ordering.GROUP,
        json(1, "a", "T", "{}"), json(2, "b", "T", "{}"), json(3, "a", "T", "{}"));

    tm.begin();
    relay(jtaAwareFactory, "xa.commit").relay(batch);
    assertThat(batch.records()).allMatch(batch::confirmed);
    assertThat(broker.messageCount("xa.commit")).as("before commit").isZero();
    tm.commit();

    assertThat(broker.messageCount("xa.commit")).as("after commit").isEqualTo(3);
    assertThat(ids(broker.receive("xa.commit", 3, 1000))).containsExactly(1L, 2L, 3L);
  }

  @Test
  void withAnXaFactoryARollbackAfterTheSendLeavesTheQueueEmpty() throws Exception {
    broker.createQueue("xa.rollback");
    TestRelayBatch batch = TestRelayBatch.of(Ordering.GROUP,
        json(11, "a", "T", "{}"), json(12, null, "T", "{}"));

    tm.begin();
    relay(jtaAwareFactory, "xa.rollback").relay(batch);
    assertThat(batch.records()).allMatch(batch::confirmed);
    tm.rollback();

    assertThat(broker.messageCount("xa.rollback")).isZero();
    assertThat(broker.receive("xa.rollback", 1, 200)).isEmpty();
  }

  @Test
  void withAnXaFactoryACommitThatFailsInPrepareAlsoUndoesTheSend() throws Exception {
    broker.createQueue("xa.failed-commit");
    TestRelayBatch batch = TestRelayBatch.of(Ordering.GROUP, json(21, "a", "T", "{}"));

    tm.begin();
    relay(jtaAwareFactory, "xa.failed-commit").relay(batch);
    // The worker's database, enlisted after the broker, votes no: two-phase commit rolls back the
    // broker's prepared branch, so the row stays and the message was never sent.
    tm.getTransaction().enlistResource(StandInDatabaseXAResource.votingNo());

    assertThatThrownBy(tm::commit).isInstanceOf(RollbackException.class);
    assertThat(broker.messageCount("xa.failed-commit")).isZero();
    assertThat(broker.receive("xa.failed-commit", 1, 200)).isEmpty();
  }

  @Test
  void withAnXaFactoryABrokerRefusalFailsTheCommitSoTheWholeBatchIsRetried() throws Exception {
    broker.createQueue("forbidden.xa");
    TestRelayBatch batch = TestRelayBatch.of(Ordering.GROUP,
        json(25, "a", "T", "{}"), json(26, "b", "T", "{}"));

    tm.begin();
    tm.getTransaction().enlistResource(StandInDatabaseXAResource.votingYes());
    relay(jtaAwareFactory, "forbidden.xa").relay(batch);
    // Transacted sends are asynchronous on Artemis: the refusal arrives with the commit. The
    // worker's transaction then rolls back, so the rows stay and nothing is lost.
    assertThat(batch.records()).allMatch(batch::confirmed);

    assertThatThrownBy(tm::commit).isInstanceOf(RollbackException.class);
    assertThat(broker.messageCount("forbidden.xa")).isZero();
  }

  @Test
  void withAPlainFactoryTheSendsAreDeliveredBeforeTheTransactionEnds() throws Exception {
    broker.createQueue("plain");
    TestRelayBatch batch = TestRelayBatch.of(Ordering.GROUP, json(31, "a", "T", "{}"));

    tm.begin();
    relay(broker.connectionFactory(), "plain").relay(batch);
    assertThat(broker.messageCount("plain")).as("before the transaction ends").isEqualTo(1);
    tm.rollback();

    // At-least-once: the worker's rollback keeps the row, so the message will be sent again.
    assertThat(ids(broker.receive("plain", 1, 1000))).containsExactly(31L);
  }

  @Test
  void concurrentWorkersShareOneRelayAndKeepEachGroupsOrder() throws Exception {
    broker.createQueue("xa.concurrent");
    JmsRelay relay = relay(jtaAwareFactory, "xa.concurrent");
    int workers = 4;
    int perWorker = 25;
    ExecutorService pool = Executors.newFixedThreadPool(workers);
    try {
      List<Future<TestRelayBatch>> results = new ArrayList<>();
      for (int w = 0; w < workers; w++) {
        String group = "partition-" + w;
        OutboxRecord[] records = LongStream.range(0, perWorker)
            .mapToObj(i -> json(1000 + i * workers, group, "T", "{}"))
            .toArray(OutboxRecord[]::new);
        results.add(pool.submit(() -> {
          TestRelayBatch batch = TestRelayBatch.of(Ordering.GROUP, records);
          tm.begin();
          relay.relay(batch);
          tm.commit();
          return batch;
        }));
      }
      for (Future<TestRelayBatch> result : results) {
        TestRelayBatch batch = result.get();
        assertThat(batch.records()).allMatch(batch::confirmed);
      }
    } finally {
      pool.shutdownNow();
    }

    List<Message> received = broker.receive("xa.concurrent", workers * perWorker, 2000);
    assertThat(received).hasSize(workers * perWorker);
    for (int w = 0; w < workers; w++) {
      assertThat(idsOfGroup(received, "partition-" + w)).hasSize(perWorker).isSorted();
    }
  }

  private static List<Long> idsOfGroup(List<Message> messages, String group) throws JMSException {
    List<Long> ids = new ArrayList<>();
    for (Message message : messages) {
      if (group.equals(message.getStringProperty(JmsMessageProperties.OUTBOX_GROUP_KEY))) {
        ids.add(message.getLongProperty(JmsMessageProperties.OUTBOX_ID));
      }
    }
    return ids;
  }
}
