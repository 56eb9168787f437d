package dev.outboxer.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import dev.outboxer.testing.TestOrder;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * The inbox (outbox-inbox) in a Quarkus application (JVM mode), the scenarios each database runs
 * (one application per subclass, which names the database): {@code @Inject Inbox} in a
 * {@code @Transactional} consumer writes its row in the caller's Narayana transaction on Quarkus'
 * default Agroal data source, beside the handling's own write through Hibernate ORM; a copy is not
 * handled again; a handling that rolls back leaves the message unhandled, so its redelivery is
 * handled; an outbox configured by id is deduplicated by id; the retention runs on Quarkus' managed
 * executor. Outboxer's portable extension for the inbox ({@code InboxUsage}) does not run in ArC:
 * the build finds the injection point instead.
 */
abstract class InboxScenarios {

  /** The application of a subclass: the consumer on {@code database}, the inbox tables created from the shipped script. */
  static QuarkusUnitTest application(TestDatabase database, Class<? extends InboxScenarios> test) {
    return QuarkusTestApplication.on(database, () -> {
          InboxTables.reset(database);
          // Accepted long ago: the retention's first run, at start, forgets it.
          database.execute("INSERT INTO outbox_inbox (outbox, group_key, last_id, processed_at)"
              + " VALUES ('payments', 'accepted-long-ago', 1, '2000-01-01 00:00:00')");
        }, InboxScenarios.class, test, PaymentConsumer.class, InboxTables.class, RecordingRelay.class,
            TestOrder.class)
        .overrideConfigKey("outbox.orders.relay", "recording")
        .overrideConfigKey("outbox.audit.inbox.deduplicate", "id")
        .overrideConfigKey("outbox.inbox.retention", "1d")
        .overrideConfigKey("outbox.inbox.retention-interval", "1s")
        // The retention says at INFO what it forgot, and on which thread.
        .overrideConfigKey("quarkus.log.category.\"dev.outboxer.inbox\".level", "INFO");
  }

  /** The database of the subclass's application. */
  abstract TestDatabase database();

  @Inject PaymentConsumer consumer;

  @Test
  void aMessageReceivedTwiceIsHandledOnce() throws Exception {
    assertThat(consumer.receive("payments", "order:1", 5, false)).isTrue();
    assertThat(consumer.receive("payments", "order:1", 5, false)).as("the copy").isFalse();

    assertThat(handlings("payments", 5)).isEqualTo(1);
    assertThat(count("SELECT last_id FROM outbox_inbox WHERE outbox = 'payments' AND group_key = 'order:1'"))
        .as("the inbox's row, committed with the handling").isEqualTo(5);
    // Ungrouped: once per id
    assertThat(consumer.receive("payments", null, 6, false)).isTrue();
    assertThat(consumer.receive("payments", null, 6, false)).as("the copy").isFalse();
    assertThat(handlings("payments", 6)).isEqualTo(1);
  }

  @Test
  void aHandlingThatRollsBackIsNotMarkedHandledSoTheRedeliveryIsHandled() throws Exception {
    assertThatThrownBy(() -> consumer.receive("payments", "order:2", 7, true))
        .hasMessageContaining("simulated failure after handling message 7");
    assertThat(handlings("payments", 7)).isZero();
    assertThat(count("SELECT count(*) FROM outbox_inbox WHERE outbox = 'payments' AND group_key = 'order:2'"))
        .as("the inbox's row, rolled back with the handling").isZero();

    assertThat(consumer.receive("payments", "order:2", 7, false)).as("the redelivery").isTrue();
    assertThat(consumer.receive("payments", "order:2", 7, false)).as("a copy of the redelivery").isFalse();
    assertThat(handlings("payments", 7)).isEqualTo(1);
  }

  @Test
  void anOutboxConfiguredByIdIsDeduplicatedById() throws Exception {
    assertThat(consumer.receive("audit", "user:1", 9, false)).isTrue();
    assertThat(consumer.receive("audit", "user:1", 8, false)).as("a lower id of the group, by id: not a copy").isTrue();
    assertThat(consumer.receive("audit", "user:1", 8, false)).as("the copy").isFalse();
    // By group elsewhere: a lower id of a group is stale
    assertThat(consumer.receive("payments", "user:1", 9, false)).isTrue();
    assertThat(consumer.receive("payments", "user:1", 8, false)).as("stale, by group").isFalse();
  }

  @Test
  void theRetentionForgetsOldIdsOnQuarkusWorkerThreads() throws Exception {
    List<String> threads = new CopyOnWriteArrayList<>();
    Handler recorder = new Handler() {
      @Override
      public void publish(LogRecord record) {
        if (record.getMessage() != null && record.getMessage().contains("forgot")) {
          threads.add(threadName(record));
        }
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    Logger retentionLog = Logger.getLogger("dev.outboxer.inbox.InboxRetention");
    retentionLog.addHandler(recorder);
    try {
      await().atMost(Duration.ofSeconds(30)).until(() ->
          count("SELECT count(*) FROM outbox_inbox WHERE group_key = 'accepted-long-ago'") == 0);
      // Another one, forgotten by a later run: that run's log line names its thread.
      database().execute("INSERT INTO outbox_inbox (outbox, group_key, last_id, processed_at)"
          + " VALUES ('payments', 'accepted-long-ago-too', 1, '2000-01-01 00:00:00')");
      await().atMost(Duration.ofSeconds(30)).until(() ->
          count("SELECT count(*) FROM outbox_inbox WHERE group_key = 'accepted-long-ago-too'") == 0
              && !threads.isEmpty());
    } finally {
      retentionLog.removeHandler(recorder);
    }
    // Quarkus' worker pool names its threads executor-thread-N: the retention did not start a thread of its own.
    assertThat(threads).isNotEmpty().allMatch(name -> name.startsWith("executor-thread-"));
  }

  /** The thread of a JBoss Log Manager record (ExtLogRecord, from the log manager's own class loader). */
  private static String threadName(LogRecord record) {
    try {
      return String.valueOf(record.getClass().getMethod("getThreadName").invoke(record));
    } catch (ReflectiveOperationException e) {
      return "unknown: " + record.getClass().getName() + " has no thread name";
    }
  }

  private long handlings(String outbox, long id) throws Exception {
    try (Connection connection = database().connect();
        PreparedStatement query = connection.prepareStatement("SELECT count(*) FROM test_order WHERE description = ?")) {
      query.setString(1, PaymentConsumer.description(outbox, id));
      try (ResultSet rows = query.executeQuery()) {
        rows.next();
        return rows.getLong(1);
      }
    }
  }

  private long count(String sql) throws Exception {
    try (Connection connection = database().connect(); PreparedStatement query = connection.prepareStatement(sql);
        ResultSet rows = query.executeQuery()) {
      return rows.next() ? rows.getLong(1) : 0;
    }
  }
}
