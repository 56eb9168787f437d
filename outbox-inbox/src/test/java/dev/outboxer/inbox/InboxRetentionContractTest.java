package dev.outboxer.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.testing.SettableClock;
import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 30, item 5, the inbox's side: {@code outbox.inbox.retention} forgets the ids accepted
 * longer ago than the retention and nothing younger, a chunk a transaction while consumers go on
 * accepting, one node at a time (the retention lock); a copy of a forgotten message is accepted
 * again, as after {@link Inbox#purge}. One subclass per database.
 */
abstract class InboxRetentionContractTest {

  private static final Duration RETENTION = Duration.ofDays(7);

  final SettableClock clock = new SettableClock();
  private DataSource dataSource;
  private Inbox inbox;

  abstract TestDatabase database();

  /** Fresh tables, and an inbox on the test's clock that deduplicates outbox {@code audit} by id. */
  @BeforeEach
  void freshInbox() throws SQLException {
    database().assumeAvailable();
    InboxTestSchema.reset(database());
    dataSource = InboxTestSchema.dataSource(database());
    inbox = Inbox.builder(dataSource).clock(clock).deduplicateById("audit").build();
  }

  @Test
  void only_ids_accepted_longer_ago_than_the_retention_are_forgotten() throws Exception {
    accept("orders", "order:1", 5);
    accept("audit", null, 100);
    clock.advance(Duration.ofDays(3));
    accept("orders", "order:2", 6);
    accept("audit", null, 101);
    accept("orders", "order:3", 1);
    clock.advance(Duration.ofDays(5));
    // order:3 accepted again 5 days later: its row is young again.
    accept("orders", "order:3", 2);

    InboxRetention.Run run = retention(2).run();

    assertThat(run.removed()).as("forgotten: order:1 and audit 100, 8 days old").isEqualTo(2);
    assertThat(run.lockedOut()).isFalse();
    assertThat(rows("outbox_inbox")).isEqualTo(2);
    assertThat(rows("outbox_inbox_message")).isEqualTo(1);
    assertThat(accepted("orders", "order:1", 5)).as("a copy of a forgotten message is accepted again").isTrue();
    assertThat(accepted("orders", "order:2", 6)).as("a copy of a remembered one is not").isFalse();
    assertThat(accepted("orders", "order:3", 2)).isFalse();
    assertThat(accepted("audit", null, 101)).isFalse();
  }

  @Test
  void a_node_forgets_nothing_while_another_node_holds_the_retention_lock() throws Exception {
    accept("orders", "order:1", 5);
    clock.advance(Duration.ofDays(8));
    InboxDialect dialect;
    try (Connection otherNode = dataSource.getConnection()) {
      dialect = InboxDialect.of(otherNode);
      otherNode.setAutoCommit(false);
      assertThat(dialect.tryRetentionLock(otherNode)).as("the other node takes the lock").isTrue();
      try {
        InboxRetention.Run run = retention(100).run();
        assertThat(run.removed()).as("forgotten while the other node held the lock").isZero();
        assertThat(run.lockedOut()).isTrue();
      } finally {
        dialect.releaseRetentionLock(otherNode);
        otherNode.rollback();
      }
    }
    assertThat(retention(100).run().removed()).as("forgotten once the lock is free").isEqualTo(1);
  }

  @Test
  void a_large_retention_commits_a_chunk_a_transaction_while_consumers_go_on_accepting() throws Exception {
    int old = 5_000;
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      for (int i = 0; i < old; i++) {
        inbox.accept(connection, new InboxMessage("orders", "old:" + i, 1));
        inbox.accept(connection, new InboxMessage("audit", null, i + 1));
      }
      connection.commit();
    }
    clock.advance(Duration.ofDays(8));
    AtomicBoolean consuming = new AtomicBoolean(true);
    List<Long> acceptedNanos = new CopyOnWriteArrayList<>();
    List<Throwable> consumerFailures = new CopyOnWriteArrayList<>();
    Thread consumer = new Thread(() -> {
      try {
        for (long id = 1; consuming.get(); id++) {
          if (accepted("orders", "live", id)) {
            acceptedNanos.add(System.nanoTime());
          }
        }
      } catch (SQLException | RuntimeException e) {
        consumerFailures.add(e);
      }
    }, "consumer");
    consumer.start();
    Thread.sleep(100);
    // Between two chunks (the run asks whether to stop before each one), an accept on another
    // connection must commit: the chunks before are committed and hold no lock. Asked here rather
    // than timed from the consumer, which on SQLite's single writer may sleep in its busy handler
    // through a whole fast run.
    AtomicInteger asked = new AtomicInteger();
    List<Boolean> acceptedBetweenChunks = new CopyOnWriteArrayList<>();
    InboxRetention.Run run;
    try {
      run = retention(500).run(() -> {
        if (asked.incrementAndGet() == 5) {
          try {
            acceptedBetweenChunks.add(accepted("orders", "between", 1));
          } catch (SQLException e) {
            throw new IllegalStateException(e);
          }
        }
        return false;
      });
    } finally {
      consuming.set(false);
    }
    consumer.join(10_000);
    assertThat(consumerFailures).as("the consumer's failures").isEmpty();

    assertThat(run.removed()).as("forgotten").isEqualTo(2 * old);
    assertThat(run.chunks()).as("chunks, one transaction each").isEqualTo(2 * old / 500);
    assertThat(acceptedBetweenChunks).as("an accept committed between the fourth and fifth chunk").containsExactly(true);
    assertThat(acceptedNanos).as("the concurrent consumer's accepts").isNotEmpty();
    assertThat(rows("outbox_inbox")).as("the live and between groups' rows").isEqualTo(2);
    assertThat(rows("outbox_inbox_message")).isZero();
  }

  InboxRetention retention(int chunkSize) {
    return ((JdbcInbox) inbox).retention(RETENTION, chunkSize);
  }

  void accept(String outbox, String groupKey, long id) throws SQLException {
    assertThat(accepted(outbox, groupKey, id)).as("accepted " + id).isTrue();
  }

  private boolean accepted(String outbox, String groupKey, long id) throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      boolean accepted = inbox.accept(connection, new InboxMessage(outbox, groupKey, id));
      connection.commit();
      return accepted;
    }
  }

  private long rows(String table) throws SQLException {
    try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery("SELECT COUNT(*) FROM " + table)) {
      row.next();
      return row.getLong(1);
    }
  }
}
