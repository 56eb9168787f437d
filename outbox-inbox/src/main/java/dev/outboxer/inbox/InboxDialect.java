package dev.outboxer.inbox;

import dev.outboxer.spi.SupportedDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The statements of each supported database. Every accept holds a lock on the group's row (or
 * inserts the id's row) until the caller's transaction ends, so two consumers of one group
 * serialise; none of them catches an error that would abort the caller's transaction.
 */
enum InboxDialect {

  /**
   * One upsert whose conditional update only applies to a greater id. On a conflict with a row that
   * another transaction inserted or locked, PostgreSQL waits for it and then re-evaluates the
   * condition against the committed row (READ COMMITTED), so the answer is the update count.
   */
  POSTGRESQL("postgresql") {
    @Override
    boolean acceptInGroup(Connection connection, InboxMessage message, LocalDateTime now) throws SQLException {
      try (PreparedStatement upsert = connection.prepareStatement(
          "INSERT INTO outbox_inbox (outbox, group_key, last_id, processed_at) VALUES (?, ?, ?, ?)"
              + " ON CONFLICT (outbox, group_key) DO UPDATE SET last_id = EXCLUDED.last_id,"
              + " processed_at = EXCLUDED.processed_at WHERE outbox_inbox.last_id < EXCLUDED.last_id")) {
        upsert.setString(1, message.outbox());
        upsert.setString(2, message.groupKey());
        upsert.setLong(3, message.id());
        upsert.setObject(4, now);
        return upsert.executeUpdate() == 1;
      }
    }

    @Override
    boolean acceptOnce(Connection connection, InboxMessage message, LocalDateTime now) throws SQLException {
      return insertOnce(connection, "INSERT INTO outbox_inbox_message (outbox, message_id, processed_at)"
          + " VALUES (?, ?, ?) ON CONFLICT (outbox, message_id) DO NOTHING", message, now);
    }

    /** Two int keys ("OBXI", 0): a key space apart from the one-bigint keys the core's group locks use. */
    @Override
    boolean tryRetentionLock(Connection connection) throws SQLException {
      try (PreparedStatement lock = connection.prepareStatement("SELECT pg_try_advisory_xact_lock(?, 0)")) {
        lock.setInt(1, 0x4F425849);
        try (ResultSet row = lock.executeQuery()) {
          row.next();
          return row.getBoolean(1);
        }
      }
    }

    @Override
    void releaseRetentionLock(Connection connection) {
      // The transaction's end releases it.
    }
  },

  /**
   * Makes sure the group's row exists, locks it, compares. The row is created with {@code ON
   * DUPLICATE KEY UPDATE} (an exclusive lock on an existing row, a wait on one another transaction
   * is inserting) rather than {@code INSERT IGNORE} (a shared lock: two consumers would both hold
   * it and deadlock on the {@code FOR UPDATE}) or a {@code FOR UPDATE} on a missing row (a gap
   * lock, same deadlock).
   */
  MARIADB("mariadb") {
    @Override
    boolean acceptInGroup(Connection connection, InboxMessage message, LocalDateTime now) throws SQLException {
      try (PreparedStatement ensure = connection.prepareStatement(
          "INSERT INTO outbox_inbox (outbox, group_key, last_id, processed_at) VALUES (?, ?, 0, ?)"
              + " ON DUPLICATE KEY UPDATE last_id = last_id")) {
        ensure.setString(1, message.outbox());
        ensure.setString(2, message.groupKey());
        ensure.setObject(3, now);
        ensure.executeUpdate();
      }
      return compareAndSet(connection, message, now);
    }

    @Override
    boolean acceptOnce(Connection connection, InboxMessage message, LocalDateTime now) throws SQLException {
      // IGNORE only ever meets the duplicate key here: the values were checked by InboxMessage.
      return insertOnce(connection, "INSERT IGNORE INTO outbox_inbox_message (outbox, message_id, processed_at)"
          + " VALUES (?, ?, ?)", message, now);
    }

    /**
     * A lock of the session, given back by {@link #releaseRetentionLock} before the connection goes
     * back to its pool. Named after the database too ({@link #MARIADB_RETENTION_LOCK}): lock names
     * are the server's, and the inbox of another database on the server is another inbox.
     */
    @Override
    boolean tryRetentionLock(Connection connection) throws SQLException {
      try (PreparedStatement lock = connection.prepareStatement("SELECT GET_LOCK(" + MARIADB_RETENTION_LOCK + ", 0)")) {
        try (ResultSet row = lock.executeQuery()) {
          row.next();
          return row.getInt(1) == 1;
        }
      }
    }

    @Override
    void releaseRetentionLock(Connection connection) throws SQLException {
      try (PreparedStatement release = connection.prepareStatement(
          "SELECT RELEASE_LOCK(" + MARIADB_RETENTION_LOCK + ")")) {
        release.executeQuery().close();
      }
    }
  },

  /**
   * PostgreSQL's statements: SQLite (3.24+) has the same upsert, and its update count is 0 when the
   * condition fails. SQLite has one writer at a time: the upsert, the transaction's first write,
   * waits (busy_timeout) for the transaction that writes now and then reads what it committed, and
   * holds the whole database until the caller's transaction ends. A transaction that read before
   * another consumer committed cannot write any more (SQLITE_BUSY_SNAPSHOT): its accept fails with
   * an {@link InboxException}, the consumer rolls back, and the redelivered copy is then dropped.
   */
  SQLITE("sqlite") {
    @Override
    boolean acceptInGroup(Connection connection, InboxMessage message, LocalDateTime now) throws SQLException {
      return POSTGRESQL.acceptInGroup(connection, message, now);
    }

    @Override
    boolean acceptOnce(Connection connection, InboxMessage message, LocalDateTime now) throws SQLException {
      return POSTGRESQL.acceptOnce(connection, message, now);
    }

    @Override
    String ddlResource() {
      return "META-INF/outboxer/inbox/ddl/sqlite.sql";
    }

    @Override
    boolean shipsMigrations() {
      return false;
    }

    /**
     * One statement that writes first: a read and then a delete in one transaction could fail to
     * upgrade its lock (SQLITE_BUSY) when a consumer wrote meanwhile.
     */
    @Override
    int deleteProcessedBefore(Connection connection, String table, List<String> keyColumns, LocalDateTime before,
        int limit) throws SQLException {
      try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + table + " WHERE rowid IN"
          + " (SELECT rowid FROM " + table + " WHERE processed_at < ? LIMIT ?)")) {
        delete.setObject(1, before);
        delete.setInt(2, limit);
        return delete.executeUpdate();
      }
    }
  },

  /**
   * As MariaDB, with a plain insert whose duplicate-key error is caught: H2 rolls back only the
   * failed statement, and waits for a row another transaction is inserting before reporting it.
   */
  H2("h2") {
    @Override
    boolean acceptInGroup(Connection connection, InboxMessage message, LocalDateTime now) throws SQLException {
      try (PreparedStatement ensure = connection.prepareStatement(
          "INSERT INTO outbox_inbox (outbox, group_key, last_id, processed_at) VALUES (?, ?, 0, ?)")) {
        ensure.setString(1, message.outbox());
        ensure.setString(2, message.groupKey());
        ensure.setObject(3, now);
        ensure.executeUpdate();
      } catch (SQLException e) {
        if (!duplicateKey(e)) {
          throw e;
        }
      }
      return compareAndSet(connection, message, now);
    }

    @Override
    boolean acceptOnce(Connection connection, InboxMessage message, LocalDateTime now) throws SQLException {
      try {
        return insertOnce(connection, "INSERT INTO outbox_inbox_message (outbox, message_id, processed_at)"
            + " VALUES (?, ?, ?)", message, now);
      } catch (SQLException e) {
        if (duplicateKey(e)) {
          return false;
        }
        throw e;
      }
    }
  };

  private final String configValue;

  /** The retention lock of the databases that serve one process. */
  private static final AtomicBoolean LOCAL_RETENTION_LOCK = new AtomicBoolean();

  /** MariaDB's retention lock name: the inbox's and the database's (a lock name is the server's), 57 characters of 64. */
  private static final String MARIADB_RETENTION_LOCK = "CONCAT('outboxer.inbox.retention.', MD5(COALESCE(DATABASE(), '')))";

  InboxDialect(String configValue) {
    this.configValue = configValue;
  }

  /** Accepts a grouped message if its id is greater than the group's last one, and records it. */
  abstract boolean acceptInGroup(Connection connection, InboxMessage message, LocalDateTime now)
      throws SQLException;

  /** Accepts a message whose id was not accepted before, and records it. */
  abstract boolean acceptOnce(Connection connection, InboxMessage message, LocalDateTime now) throws SQLException;

  /**
   * Tries the inbox's retention lock without waiting, for the rest of this transaction: one node's
   * retention at a time. By default a lock of this JVM, for the databases that serve one process
   * (H2, SQLite); PostgreSQL takes an advisory lock, MariaDB {@code GET_LOCK}.
   *
   * @return whether this transaction holds it now
   */
  boolean tryRetentionLock(Connection connection) throws SQLException {
    return LOCAL_RETENTION_LOCK.compareAndSet(false, true);
  }

  /** Gives the retention lock back where the transaction's end does not (MariaDB, this JVM's lock). */
  void releaseRetentionLock(Connection connection) throws SQLException {
    LOCAL_RETENTION_LOCK.set(false);
  }

  /**
   * Removes up to {@code limit} rows of the table processed before {@code before}: by default a
   * plain read of their keys, then a batch of deletes by primary key that each check the time again
   * (a consumer that accepted a newer message of the group meanwhile keeps its row). Deletes by key
   * lock those rows only, never a range an accept inserts into (MariaDB's next-key locks).
   *
   * @param keyColumns the table's primary key, two columns
   * @return how many rows were removed
   */
  int deleteProcessedBefore(Connection connection, String table, List<String> keyColumns, LocalDateTime before,
      int limit) throws SQLException {
    List<Object[]> keys = new ArrayList<>();
    try (PreparedStatement read = connection.prepareStatement("SELECT " + String.join(", ", keyColumns) + " FROM "
        + table + " WHERE processed_at < ? ORDER BY processed_at LIMIT ?")) {
      read.setObject(1, before);
      read.setInt(2, limit);
      try (ResultSet rows = read.executeQuery()) {
        while (rows.next()) {
          keys.add(new Object[] {rows.getObject(1), rows.getObject(2)});
        }
      }
    }
    if (keys.isEmpty()) {
      return 0;
    }
    String byKey = " WHERE " + keyColumns.get(0) + " = ? AND " + keyColumns.get(1) + " = ? AND processed_at < ?";
    int[] counts;
    try (PreparedStatement delete = connection.prepareStatement("DELETE FROM " + table + byKey)) {
      for (Object[] key : keys) {
        delete.setObject(1, key[0]);
        delete.setObject(2, key[1]);
        delete.setObject(3, before);
        delete.addBatch();
      }
      counts = delete.executeBatch();
    }
    if (Arrays.stream(counts).allMatch(count -> count >= 0)) {
      return Arrays.stream(counts).sum();
    }
    // The driver did not tell each delete's count (MariaDB's bulk protocol): the keys still there were kept.
    int kept = 0;
    try (PreparedStatement still = connection.prepareStatement("SELECT COUNT(*) FROM " + table + byKey)) {
      for (Object[] key : keys) {
        still.setObject(1, key[0]);
        still.setObject(2, key[1]);
        still.setObject(3, before);
        try (ResultSet row = still.executeQuery()) {
          row.next();
          kept += row.getInt(1);
        }
      }
    }
    return keys.size() - kept;
  }

  /** The database's name in resource paths: {@code postgresql}, {@code mariadb}, {@code h2}. */
  String configValue() {
    return configValue;
  }

  /** The plain DDL script in the jar, also the Flyway migration where {@link #shipsMigrations()}. */
  String ddlResource() {
    return "META-INF/outboxer/inbox/flyway/" + configValue + "/V1__outboxer_inbox.sql";
  }

  /** Whether the jar has a Flyway migration and a Liquibase changelog for the database (not SQLite: as the core). */
  boolean shipsMigrations() {
    return true;
  }

  /**
   * The dialect of the connection's database, recognised by the rule the core uses too
   * ({@link SupportedDatabase#of(java.sql.DatabaseMetaData)}).
   *
   * @throws InboxException naming the product if it is none of the supported databases
   */
  static InboxDialect of(Connection connection) throws SQLException {
    try {
      return valueOf(SupportedDatabase.of(connection.getMetaData()).name());
    } catch (IllegalArgumentException unsupported) {
      throw new InboxException("The inbox cannot use its database. " + unsupported.getMessage(), unsupported);
    }
  }

  /** Locks the group's row (which exists), then moves its last id up if the message's is greater. */
  private static boolean compareAndSet(Connection connection, InboxMessage message, LocalDateTime now)
      throws SQLException {
    long lastId;
    try (PreparedStatement lock = connection.prepareStatement(
        "SELECT last_id FROM outbox_inbox WHERE outbox = ? AND group_key = ? FOR UPDATE")) {
      lock.setString(1, message.outbox());
      lock.setString(2, message.groupKey());
      try (ResultSet row = lock.executeQuery()) {
        if (!row.next()) {
          throw new IllegalStateException("The inbox row of group '" + message.groupKey() + "' of outbox '"
              + message.outbox() + "' vanished after it was inserted in this transaction. Indicates a bug.");
        }
        lastId = row.getLong(1);
      }
    }
    if (message.id() <= lastId) {
      return false;
    }
    try (PreparedStatement update = connection.prepareStatement(
        "UPDATE outbox_inbox SET last_id = ?, processed_at = ? WHERE outbox = ? AND group_key = ?")) {
      update.setLong(1, message.id());
      update.setObject(2, now);
      update.setString(3, message.outbox());
      update.setString(4, message.groupKey());
      update.executeUpdate();
    }
    return true;
  }

  private static boolean insertOnce(Connection connection, String sql, InboxMessage message, LocalDateTime now)
      throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement(sql)) {
      insert.setString(1, message.outbox());
      insert.setLong(2, message.id());
      insert.setObject(3, now);
      return insert.executeUpdate() == 1;
    }
  }

  private static boolean duplicateKey(SQLException e) {
    return "23505".equals(e.getSQLState());
  }
}
