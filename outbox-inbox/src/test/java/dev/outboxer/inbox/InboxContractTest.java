package dev.outboxer.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.testing.SettableClock;
import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the inbox promises, on a real database, with the consumer's transaction a plain JDBC
 * transaction (Java SE): one subclass per database.
 */
abstract class InboxContractTest {

  private static final String ORDERS = "orders";

  private final SettableClock clock = new SettableClock();
  private final ExecutorService consumers = Executors.newFixedThreadPool(4);
  private DataSource dataSource;
  Inbox inbox;

  abstract TestDatabase database();

  @BeforeEach
  void createTables() throws SQLException {
    database().assumeAvailable();
    InboxTestSchema.reset(database());
    dataSource = InboxTestSchema.dataSource(database());
    inbox = Inbox.builder(dataSource).deduplicateById("audit").clock(clock).build();
  }

  @AfterEach
  void stopConsumers() {
    consumers.shutdownNow();
  }

  @Test
  void acceptsTheMessagesOfAGroupInIdOrder() throws Exception {
    assertThat(acceptCommitted(ORDERS, "order:1", 1)).isTrue();
    assertThat(acceptCommitted(ORDERS, "order:1", 5)).isTrue();
    assertThat(acceptCommitted(ORDERS, "order:1", 9)).isTrue();
    assertThat(lastId(ORDERS, "order:1")).isEqualTo(9);
  }

  @Test
  void dropsARedeliveredId() throws Exception {
    assertThat(acceptCommitted(ORDERS, "order:1", 5)).isTrue();

    assertThat(acceptCommitted(ORDERS, "order:1", 5)).isFalse();
    assertThat(lastId(ORDERS, "order:1")).isEqualTo(5);
  }

  @Test
  void dropsAnOlderIdAfterANewerOne() throws Exception {
    assertThat(acceptCommitted(ORDERS, "order:1", 9)).isTrue();

    assertThat(acceptCommitted(ORDERS, "order:1", 5)).isFalse();
    assertThat(lastId(ORDERS, "order:1")).isEqualTo(9);
  }

  @Test
  void keepsGroupsAndOutboxesApart() throws Exception {
    assertThat(acceptCommitted(ORDERS, "order:1", 9)).isTrue();

    assertThat(acceptCommitted(ORDERS, "order:2", 5)).isTrue();
    assertThat(acceptCommitted("payments", "order:1", 5)).isTrue();
    // Exact group keys, as in the outbox: neither case nor trailing blanks are ignored.
    assertThat(acceptCommitted(ORDERS, "ORDER:1", 5)).isTrue();
    assertThat(acceptCommitted(ORDERS, "order:1 ", 5)).isTrue();
    assertThat(acceptCommitted(ORDERS, "order:1", 5)).isFalse();
  }

  @Test
  void forgetsTheAcceptWhenTheConsumersTransactionRollsBack() throws Exception {
    try (Connection connection = transaction()) {
      assertThat(inbox.accept(connection, new InboxMessage(ORDERS, "order:1", 5))).isTrue();
      connection.rollback();
    }

    assertThat(acceptCommitted(ORDERS, "order:1", 5)).isTrue();
  }

  @Test
  void forgetsTheAcceptOfANewerIdOnRollbackSoTheGroupsEarlierLastIdStands() throws Exception {
    assertThat(acceptCommitted(ORDERS, "order:1", 5)).isTrue();
    try (Connection connection = transaction()) {
      assertThat(inbox.accept(connection, new InboxMessage(ORDERS, "order:1", 9))).isTrue();
      connection.rollback();
    }

    assertThat(lastId(ORDERS, "order:1")).isEqualTo(5);
    assertThat(acceptCommitted(ORDERS, "order:1", 7)).isTrue();
    assertThat(acceptCommitted(ORDERS, "order:1", 9)).isTrue();
  }

  @Test
  void acceptsARevivedDeadMessageUnderItsNewGreaterId() throws Exception {
    // 3 died and was skipped by the outbox; 4 went on; the operator revived 3, which came back as 10.
    assertThat(acceptCommitted(ORDERS, "order:1", 4)).isTrue();

    assertThat(acceptCommitted(ORDERS, "order:1", 10)).isTrue();
    assertThat(acceptCommitted(ORDERS, "order:1", 3)).isFalse();
  }

  @Test
  void acceptsEachIdOfUngroupedMessagesOnceInAnyOrder() throws Exception {
    assertThat(acceptCommitted(ORDERS, null, 7)).isTrue();
    assertThat(acceptCommitted(ORDERS, null, 3)).isTrue();

    assertThat(acceptCommitted(ORDERS, null, 7)).isFalse();
    assertThat(acceptCommitted(ORDERS, null, 3)).isFalse();
    assertThat(acceptCommitted("payments", null, 7)).isTrue();
  }

  @Test
  void deduplicatesAnOutboxSetToByIdPerIdNotPerGroup() throws Exception {
    assertThat(acceptCommitted("audit", "user:1", 9)).isTrue();

    assertThat(acceptCommitted("audit", "user:1", 5)).isTrue();
    assertThat(acceptCommitted("audit", "user:1", 9)).isFalse();
    assertThat(acceptCommitted("audit", "user:2", 5)).isFalse();
  }

  @Test
  void serialisesTwoConsumersOfANewGroupAndOnlyOneAcceptsTheSameId() throws Exception {
    assertThat(racingCopies(ORDERS, "order:new", 5, true)).containsExactly(true, false);
  }

  @Test
  void serialisesTwoConsumersOfAKnownGroupAndOnlyOneAcceptsTheSameId() throws Exception {
    acceptCommitted(ORDERS, "order:1", 2);

    assertThat(racingCopies(ORDERS, "order:1", 5, true)).containsExactly(true, false);
  }

  @Test
  void theWaitingConsumerAcceptsWhenTheFirstRollsBack() throws Exception {
    acceptCommitted(ORDERS, "order:1", 2);

    assertThat(racingCopies(ORDERS, "order:1", 5, false)).containsExactly(true, true);
    assertThat(racingCopies(ORDERS, "order:new", 5, false)).containsExactly(true, true);
  }

  /**
   * A consumer's transaction may have read before another consumer committed (on MariaDB, in
   * REPEATABLE READ, that fixes its snapshot): the inbox must still compare with the committed last
   * id, not with the snapshot's.
   */
  @Test
  void aConsumerWhoseTransactionReadEarlierStillSeesTheAcceptCommittedSince() throws Exception {
    acceptCommitted(ORDERS, "order:1", 2);
    InboxMessage copy = new InboxMessage(ORDERS, "order:1", 5);
    try (Connection second = transaction()) {
      try (Statement statement = second.createStatement();
          ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM outbox_inbox")) {
        rows.next();
      }
      assertThat(acceptCommitted(ORDERS, "order:1", 5)).isTrue();

      assertThat(inbox.accept(second, copy)).isFalse();
      second.commit();
    }
  }

  @Test
  void serialisesTwoConsumersOfTheSameUngroupedId() throws Exception {
    assertThat(racingCopies(ORDERS, null, 5, true)).containsExactly(true, false);
    assertThat(racingCopies(ORDERS, null, 6, false)).containsExactly(true, true);
  }

  /**
   * Four consumers each receive every message of one group, in order (four copies of every batch,
   * interleaved): each message is accepted exactly once, and the accepts come in id order.
   */
  @Test
  void fourConsumersOfFourCopiesOfAGroupAcceptEachMessageExactlyOnce() throws Exception {
    int messages = 60;
    Map<Long, AtomicInteger> accepts = new ConcurrentHashMap<>();
    List<Long> acceptOrder = java.util.Collections.synchronizedList(new ArrayList<>());
    List<Future<?>> copies = new ArrayList<>();
    for (int copy = 0; copy < 4; copy++) {
      copies.add(consumers.submit(() -> {
        for (long id = 1; id <= messages; id++) {
          try (Connection connection = transaction()) {
            if (inbox.accept(connection, new InboxMessage(ORDERS, "order:hot", id))) {
              accepts.computeIfAbsent(id, key -> new AtomicInteger()).incrementAndGet();
              // Recorded before the commit, while the group's row is still locked.
              acceptOrder.add(id);
            }
            connection.commit();
          }
        }
        return null;
      }));
    }
    for (Future<?> copy : copies) {
      copy.get(2, TimeUnit.MINUTES);
    }

    assertThat(accepts).hasSize(messages);
    assertThat(accepts.values()).allSatisfy(count -> assertThat(count.get()).isEqualTo(1));
    assertThat(acceptOrder).isSorted();
    assertThat(lastId(ORDERS, "order:hot")).isEqualTo(messages);
  }

  @Test
  void refusesAConnectionInAutoCommitModeAndWritesNothing() throws Exception {
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(true);
      assertThatThrownBy(() -> inbox.accept(connection, new InboxMessage(ORDERS, "order:1", 5)))
          .isInstanceOf(InboxException.class)
          .hasMessageContaining("auto-commit")
          .hasMessageContaining("message 5 of outbox 'orders'");
    }
    assertThatThrownBy(() -> inbox.accept(ORDERS, "order:1", 5)).isInstanceOf(InboxException.class);

    assertThat(acceptCommitted(ORDERS, "order:1", 5)).isTrue();
  }

  @Test
  void purgeForgetsWhatWasLastAcceptedBeforeTheCutOff() throws Exception {
    clock.freeze();
    acceptCommitted(ORDERS, "order:old", 5);
    acceptCommitted(ORDERS, null, 6);
    clock.advance(Duration.ofDays(30));
    Instant cutOff = clock.instant();
    clock.advance(Duration.ofSeconds(1));
    acceptCommitted(ORDERS, "order:recent", 7);
    acceptCommitted(ORDERS, null, 8);

    int removed;
    try (Connection connection = transaction()) {
      removed = inbox.purge(connection, cutOff);
      connection.commit();
    }

    assertThat(removed).isEqualTo(2);
    assertThat(acceptCommitted(ORDERS, "order:recent", 7)).isFalse();
    assertThat(acceptCommitted(ORDERS, null, 8)).isFalse();
    // Forgotten: a copy arriving now is accepted again, as documented.
    assertThat(acceptCommitted(ORDERS, "order:old", 5)).isTrue();
    assertThat(acceptCommitted(ORDERS, null, 6)).isTrue();
  }

  @Test
  void buildFailsNamingTheMissingTablesAndTheScriptThatCreatesThem() {
    InboxTestSchema.drop(database());

    InboxDialect dialect = InboxDialect.valueOf(database().name());
    assertThatThrownBy(() -> Inbox.builder(dataSource).build())
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("missing table outbox_inbox, table outbox_inbox_message")
        .hasMessageContaining(dialect.ddlResource())
        .hasMessageContaining(dialect.shipsMigrations() ? "META-INF/outboxer/inbox/liquibase/"
            + database().configValue() + ".xml" : "outbox-inbox.jar");
  }

  @Test
  void buildFailsNamingAMissingColumn() {
    dropProcessedAtColumn();

    assertThatThrownBy(() -> Inbox.builder(dataSource).build())
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("missing column outbox_inbox.processed_at")
        .hasMessageNotContaining("table outbox_inbox_message");
  }

  /** Drops outbox_inbox.processed_at (SQLite overrides: it drops no indexed column). */
  void dropProcessedAtColumn() {
    database().execute("ALTER TABLE outbox_inbox DROP COLUMN processed_at");
  }

  /**
   * Two consumers get a copy of the same message at once. The first accepts and holds its
   * transaction open; the second must wait for it (its accept does not return), then answer
   * according to the first's outcome.
   *
   * @return the two answers, first consumer first
   */
  private List<Boolean> racingCopies(String outbox, String groupKey, long id, boolean firstCommits)
      throws Exception {
    InboxMessage message = new InboxMessage(outbox, groupKey, id);
    CountDownLatch firstAccepted = new CountDownLatch(1);
    CountDownLatch finishFirst = new CountDownLatch(1);
    Future<Boolean> first = consumers.submit(() -> {
      try (Connection connection = transaction()) {
        boolean accepted = inbox.accept(connection, message);
        firstAccepted.countDown();
        finishFirst.await();
        if (firstCommits) {
          connection.commit();
        } else {
          connection.rollback();
        }
        return accepted;
      }
    });
    assertThat(firstAccepted.await(30, TimeUnit.SECONDS)).isTrue();
    Future<Boolean> second = consumers.submit(() -> {
      try (Connection connection = transaction()) {
        boolean accepted = inbox.accept(connection, message);
        connection.commit();
        return accepted;
      }
    });
    assertThatThrownBy(() -> second.get(500, TimeUnit.MILLISECONDS))
        .as("the second consumer waits for the first one's transaction")
        .isInstanceOf(TimeoutException.class);
    finishFirst.countDown();
    return List.of(first.get(30, TimeUnit.SECONDS), second.get(30, TimeUnit.SECONDS));
  }

  boolean acceptCommitted(String outbox, String groupKey, long id) throws SQLException {
    try (Connection connection = transaction()) {
      boolean accepted = inbox.accept(connection, new InboxMessage(outbox, groupKey, id));
      connection.commit();
      return accepted;
    }
  }

  Connection transaction() throws SQLException {
    Connection connection = dataSource.getConnection();
    connection.setAutoCommit(false);
    return connection;
  }

  private long lastId(String outbox, String groupKey) throws SQLException {
    try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
        ResultSet row = statement.executeQuery("SELECT last_id FROM outbox_inbox WHERE outbox = '" + outbox
            + "' AND group_key = '" + groupKey + "'")) {
      assertThat(row.next()).as("a row for group " + groupKey).isTrue();
      return row.getLong(1);
    }
  }
}
