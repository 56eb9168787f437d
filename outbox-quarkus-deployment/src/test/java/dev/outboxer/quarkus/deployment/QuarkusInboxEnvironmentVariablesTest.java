package dev.outboxer.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import dev.outboxer.testing.TestOrder;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every inbox key that Quarkus can use, set as an environment variable only (the pom's surefire
 * execution {@code inbox-environment} sets them; the other tests run without them):
 * {@code OUTBOX_INBOX_SCHEMA=none} (the tables are not checked: a group key column too short for the
 * check does not fail the start), {@code OUTBOX_PAYMENTS_INBOX_DEDUPLICATE=id}, {@code
 * OUTBOX_INBOX_RETENTION=1d}, {@code OUTBOX_INBOX_RETENTION_INTERVAL=1s} and {@code
 * OUTBOX_INBOX_RETENTION_CHUNK_SIZE=1}. {@code outbox.inbox.datasource} is a JNDI name, which
 * Quarkus does not have ({@link QuarkusInboxDataSourceNameTest}).
 */
@Tag(QuarkusInboxEnvironmentVariablesTest.TAG)
class QuarkusInboxEnvironmentVariablesTest {

  static final String TAG = "inbox-environment";
  private static final TestDatabase DATABASE = TestDatabase.POSTGRESQL;

  @RegisterExtension
  static final QuarkusUnitTest APP = QuarkusTestApplication.on(DATABASE, () -> {
        InboxTables.reset(DATABASE);
        // Too short for the schema check (255 characters), long enough for these tests' keys
        DATABASE.execute("ALTER TABLE outbox_inbox ALTER COLUMN group_key TYPE VARCHAR(100)");
        DATABASE.execute("INSERT INTO outbox_inbox (outbox, group_key, last_id, processed_at) VALUES"
            + " ('payments', 'two-days-ago', 1, now() - interval '2 days'),"
            + " ('payments', 'three-days-ago', 1, now() - interval '3 days'),"
            + " ('payments', 'twelve-hours-ago', 1, now() - interval '12 hours')");
      }, QuarkusInboxEnvironmentVariablesTest.class, PaymentConsumer.class, InboxTables.class, RecordingRelay.class,
          TestOrder.class)
      .overrideConfigKey("outbox.orders.relay", "recording")
      // The retention says at INFO what each run forgot, in how many chunks.
      .overrideConfigKey("quarkus.log.category.\"dev.outboxer.inbox\".level", "INFO")
      .setLogRecordPredicate(record -> record.getLoggerName().equals("dev.outboxer.inbox.InboxRetention"))
      // OUTBOX_INBOX_RETENTION_CHUNK_SIZE=1: the run at start forgets the two old ids a chunk each
      .assertLogRecords(records -> assertThat(records).extracting(java.util.logging.LogRecord::getMessage)
          .anyMatch(message -> message.contains("forgot 2 accepted id(s)") && message.contains("in 2 chunk(s)")));

  @Inject PaymentConsumer consumer;

  @Test
  void everyInboxKeyIsReadFromTheEnvironment() throws Exception {
    assertThat(System.getenv()).as("set by the pom's execution %s", TAG).containsAllEntriesOf(Map.of(
        "OUTBOX_INBOX_SCHEMA", "none", "OUTBOX_PAYMENTS_INBOX_DEDUPLICATE", "id", "OUTBOX_INBOX_RETENTION", "1d",
        "OUTBOX_INBOX_RETENTION_INTERVAL", "1s", "OUTBOX_INBOX_RETENTION_CHUNK_SIZE", "1"));

    // OUTBOX_PAYMENTS_INBOX_DEDUPLICATE=id: a lower id of a group is a message of its own
    assertThat(consumer.receive("payments", "user:1", 9, false)).isTrue();
    assertThat(consumer.receive("payments", "user:1", 8, false)).as("by id: not stale").isTrue();
    assertThat(consumer.receive("payments", "user:1", 8, false)).as("the copy").isFalse();
    // By group elsewhere
    assertThat(consumer.receive("orders", "user:1", 9, false)).isTrue();
    assertThat(consumer.receive("orders", "user:1", 8, false)).as("stale, by group").isFalse();

    // OUTBOX_INBOX_RETENTION=1d: what is older goes, what is younger stays
    await().atMost(Duration.ofSeconds(30)).until(() -> count("SELECT count(*) FROM outbox_inbox"
        + " WHERE group_key IN ('two-days-ago', 'three-days-ago')") == 0);
    assertThat(count("SELECT count(*) FROM outbox_inbox WHERE group_key = 'twelve-hours-ago'")).isEqualTo(1);
    // OUTBOX_INBOX_RETENTION_INTERVAL=1s (not the default hour): a later run forgets what aged since
    DATABASE.execute("INSERT INTO outbox_inbox (outbox, group_key, last_id, processed_at)"
        + " VALUES ('payments', 'aged-since', 1, now() - interval '2 days')");
    await().atMost(Duration.ofSeconds(30)).until(() ->
        count("SELECT count(*) FROM outbox_inbox WHERE group_key = 'aged-since'") == 0);
  }

  private static long count(String sql) throws Exception {
    try (Connection connection = DATABASE.connect(); Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getLong(1);
    }
  }
}
