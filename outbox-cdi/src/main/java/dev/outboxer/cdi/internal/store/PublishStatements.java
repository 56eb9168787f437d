package dev.outboxer.cdi.internal.store;

import dev.outboxer.OutboxException;
import dev.outboxer.cdi.internal.jdbc.Sql;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;

/**
 * The insert of a message, in one statement and one round trip: the id from the sequence, the
 * partition from the partition count stored in {@code outbox_rules} (never this node's own
 * configuration), and the row, returning id and partition.
 *
 * <p>The statement also holds the rules row in a shared lock until the caller's transaction ends
 * (PostgreSQL {@code FOR KEY SHARE}, MariaDB {@code LOCK IN SHARE MODE}). A change of the partition
 * count takes that row exclusively: it waits for every transaction that published with the old
 * count, and publishers that come while it runs wait and then see the new count. No message is ever
 * written into a partition of a layout that is no longer in force.
 *
 * <p>SQLite takes two statements: the id is drawn from the {@code outbox_sequence} counter, which
 * takes the database's write lock (held until the caller's transaction ends, so ids increase in
 * commit order and no change of the rules can run meanwhile), then the insert reads it back.
 */
@ApplicationScoped
public class PublishStatements {

  private static final String COLUMNS = "(id, outbox, partition_no, partition_key, group_key, message_type,"
      + " content_type, payload, headers, status, attempts, created_at)";

  // Parameters of every variant: 1 partition key, 2 partition key, 3 group key, 4 type, 5 content type, 6 payload,
  // 7 headers, 8 created at (UTC), 9 outbox; PostgreSQL with serialize-writes: 10 the advisory lock key.
  private static final String POSTGRESQL = "INSERT INTO outbox_message " + COLUMNS
      + " SELECT nextval('outbox_message_seq'), r.outbox, MOD(?, r.partition_count), ?, ?, ?, ?, ?, ?, 'PENDING', 0, ?"
      + " FROM outbox_rules r WHERE r.outbox = ?"
      // A one-time filter, evaluated before the id is drawn: the transaction has an xid from here on, so every id
      // drawn belongs to a transaction that is visible as running (see PartitionCursor).
      + " AND txid_current() IS NOT NULL";
  private static final String POSTGRESQL_LOCKED = POSTGRESQL
      // serialize-writes: the group's lock comes before the id, so ids of a group increase in commit order.
      + " AND pg_advisory_xact_lock(?) IS NOT NULL";
  private static final String POSTGRESQL_TAIL = " FOR KEY SHARE OF r RETURNING id, partition_no";
  private static final String MARIADB = "INSERT INTO outbox_message " + COLUMNS
      + " SELECT NEXT VALUE FOR outbox_message_seq, r.outbox, MOD(?, r.partition_count), ?, ?, ?, ?, ?, ?, 'PENDING', 0, ?"
      + " FROM outbox_rules r WHERE r.outbox = ? LOCK IN SHARE MODE RETURNING id, partition_no";
  private static final String H2 = "SELECT id, partition_no FROM FINAL TABLE (INSERT INTO outbox_message " + COLUMNS
      + " SELECT NEXT VALUE FOR outbox_message_seq, r.outbox, MOD(?, r.partition_count), ?, ?, ?, ?, ?, ?, 'PENDING', 0, ?"
      + " FROM outbox_rules r WHERE r.outbox = ?)";
  private static final String SQLITE = "INSERT INTO outbox_message " + COLUMNS
      + " SELECT (SELECT last_value FROM outbox_sequence WHERE name = 'outbox_message_seq'), r.outbox,"
      + " MOD(?, r.partition_count), ?, ?, ?, ?, ?, ?, 'PENDING', 0, ? FROM outbox_rules r WHERE r.outbox = ?"
      + " RETURNING id, partition_no";

  @Inject Database database;

  /** The id and partition a message got. */
  public record Inserted(long id, int partition) {}

  /** A message to insert. {@code createdAt} is UTC. */
  public record NewMessage(String outbox, int partitionKey, String groupKey, String type, String contentType,
      byte[] payload, String headers, LocalDateTime createdAt) {}

  /**
   * Inserts the message; with {@code serializeWrites} and a group key, first waits for the group's
   * write lock, which is held until the caller's transaction ends. On SQLite the single writer
   * already serialises every publisher: {@code serializeWrites} changes nothing there.
   */
  public Inserted insert(Connection connection, NewMessage message, boolean serializeWrites) throws SQLException {
    Dialect dialect = database.dialect();
    boolean lock = serializeWrites && message.groupKey() != null && !dialect.singleWriter();
    if (dialect.singleWriter()) {
      SingleWriter.draw(connection, "outbox_message_seq", 1, 0);
    } else if (lock && !dialect.advisoryLocks()) {
      lockGroupRow(connection, dialect, message.outbox(), message.groupKey(), message.createdAt());
    }
    String sql = switch (dialect) {
      case POSTGRESQL -> (lock ? POSTGRESQL_LOCKED : POSTGRESQL) + POSTGRESQL_TAIL;
      case MARIADB -> MARIADB;
      case H2 -> H2;
      case SQLITE -> SQLITE;
    };
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setInt(1, message.partitionKey());
      statement.setInt(2, message.partitionKey());
      Sql.setNullableString(statement, 3, message.groupKey());
      statement.setString(4, message.type());
      statement.setString(5, message.contentType());
      statement.setBytes(6, message.payload());
      Sql.setNullableString(statement, 7, message.headers());
      Sql.setUtc(statement, 8, message.createdAt());
      statement.setString(9, message.outbox());
      if (lock && dialect.advisoryLocks()) {
        statement.setLong(10, GroupHash.lockKey(message.outbox(), message.groupKey()));
      }
      try (ResultSet rows = statement.executeQuery()) {
        if (!rows.next()) {
          throw new OutboxException("Outbox '" + message.outbox() + "': its row in outbox_rules is missing, so the"
              + " message has no partition. Outboxer creates the row at start-up: was it deleted, or does this"
              + " application write to another database than the one it started with? Nothing was written.");
        }
        return new Inserted(rows.getLong(1), rows.getInt(2));
      }
    }
  }

  /**
   * Takes the serialize-writes lock of one group, held until the caller's transaction ends: the
   * lock a publish of the group takes before it draws its id (PostgreSQL: the advisory lock of
   * {@link GroupHash#lockKey}; MariaDB and H2: the group's row in {@code outbox_group_lock}). An
   * admin operation that draws new ids for messages of the group takes it too. Not for SQLite,
   * whose single writer already serialises everything.
   */
  static void lockGroup(Connection connection, Dialect dialect, String outbox, String groupKey, LocalDateTime now)
      throws SQLException {
    if (dialect.advisoryLocks()) {
      try (PreparedStatement statement = connection.prepareStatement("SELECT pg_advisory_xact_lock(?)")) {
        statement.setLong(1, GroupHash.lockKey(outbox, groupKey));
        statement.executeQuery().close();
      }
    } else {
      lockGroupRow(connection, dialect, outbox, groupKey, now);
    }
  }

  /**
   * The lock row of one group key, taken exclusively (inserted on first use). Exact keys, no shared
   * slots: unrelated groups never wait for each other.
   */
  private static void lockGroupRow(Connection connection, Dialect dialect, String outbox, String groupKey,
      LocalDateTime now) throws SQLException {
    if (dialect == Dialect.MARIADB) {
      // Inserts the row, or takes the existing one exclusively (a record lock on the primary key, no gap lock).
      try (PreparedStatement statement = connection.prepareStatement("INSERT INTO outbox_group_lock (outbox, group_key,"
          + " locked_at) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE locked_at = VALUES(locked_at)")) {
        statement.setString(1, outbox);
        statement.setString(2, groupKey);
        Sql.setUtc(statement, 3, now);
        statement.executeUpdate();
      }
      return;
    }
    // H2: lock the row if it is there; otherwise insert it, and if a concurrent publisher inserted it first (the
    // insert waits for that one to end, then finds the key taken), lock theirs.
    for (int attempt = 0; ; attempt++) {
      try (PreparedStatement statement = connection.prepareStatement("SELECT group_key FROM outbox_group_lock"
          + " WHERE outbox = ? AND group_key = ? FOR UPDATE")) {
        statement.setString(1, outbox);
        statement.setString(2, groupKey);
        try (ResultSet rows = statement.executeQuery()) {
          if (rows.next()) {
            return;
          }
        }
      }
      try (PreparedStatement statement = connection.prepareStatement(
          "INSERT INTO outbox_group_lock (outbox, group_key, locked_at) VALUES (?, ?, ?)")) {
        statement.setString(1, outbox);
        statement.setString(2, groupKey);
        Sql.setUtc(statement, 3, now);
        statement.executeUpdate();
        return;
      } catch (SQLException taken) {
        if (attempt > 2 || !"23505".equals(taken.getSQLState())) {
          throw taken;
        }
      }
    }
  }
}
