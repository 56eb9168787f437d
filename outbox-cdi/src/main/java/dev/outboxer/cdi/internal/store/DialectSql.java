package dev.outboxer.cdi.internal.store;

import dev.outboxer.cdi.internal.store.PublishStatements.NewMessage;
import dev.outboxer.PreparedTransaction;
import dev.outboxer.cdi.internal.jdbc.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeSet;

/**
 * What differs between the databases in the statements of the stores: one implementation per
 * database ({@link PostgresSql}, {@link MariaDbSql}, {@link H2Sql}, {@link SqliteSql}), reached
 * through {@link Dialect#sql()}, so that a store says what it does once and each database's way of
 * doing it is in one small class. The stores keep the SQL that is the same everywhere.
 *
 * <p>Every method runs in the caller's transaction and holds what it locks until that transaction
 * ends. The workers' batch statements have an interface of their own, {@link BatchSql}; what a
 * database can do ({@link Dialect#singleWriter()}, {@link Dialect#advisoryLocks()}) stays on
 * {@link Dialect}.
 */
interface DialectSql {

  /**
   * The publish: one statement that draws the id, reads the partition count in force (holding the
   * rules row in a shared lock until the transaction ends, see {@link PublishStatements}) and
   * inserts the row, returning {@code id, partition_no}. Parameters: 1 partition key, 2 partition
   * key, 3 group key, 4 type, 5 content type, 6 payload, 7 headers, 8 created at (UTC), 9 outbox;
   * where {@link #groupLockInInsert()} and {@code lockGroup}, 10 the group's lock key
   * ({@link GroupHash#lockKey}).
   */
  String insertMessage(boolean lockGroup);

  /**
   * Whether the insert itself takes the group's serialize-writes lock (before it draws the id), so
   * that {@link #beforeInsert} need not. Only PostgreSQL's insert does.
   */
  default boolean groupLockInInsert() {
    return false;
  }

  /**
   * What must run before {@link #insertMessage} in the same transaction: the group's lock where the
   * insert does not take it ({@code lockGroup}), the id where the insert cannot draw it. By default
   * the group's lock row ({@link #lockGroup}), for the databases whose insert cannot take it.
   */
  default void beforeInsert(Connection connection, NewMessage message, boolean lockGroup) throws SQLException {
    if (lockGroup) {
      lockGroup(connection, message.outbox(), message.groupKey(), message.createdAt());
    }
  }

  /**
   * Takes the serialize-writes lock of one group, held until the transaction ends: the lock a
   * publish of the group takes before it draws its id. Exact keys: unrelated groups never wait for
   * each other. Nothing on a database whose single writer already serialises every publisher.
   */
  void lockGroup(Connection connection, String outbox, String groupKey, LocalDateTime now) throws SQLException;

  /**
   * Takes the serialize-writes locks of several groups, in the order given (sorted, so that two
   * callers never deadlock over them), held until the transaction ends. By default one {@link
   * #lockGroup} after the other.
   */
  default void lockGroups(Connection connection, String outbox, java.util.SortedSet<String> groupKeys,
      LocalDateTime now) throws SQLException {
    for (String groupKey : groupKeys) {
      lockGroup(connection, outbox, groupKey, now);
    }
  }

  /**
   * Makes the dead messages pending again under their new ids, as fresh messages (attempts 0, no
   * retry time, no last error), each only if it is still a dead message of the outbox. Without a
   * retry time a worker reads them with the other fresh messages, in id order, a batch at a time;
   * with one, every batch would read all of them (the messages that wait for a retry are read in
   * full, being few as a rule). By default one batch of updates
   * by primary key; where the driver does not tell a batch entry's count ({@link
   * Statement#SUCCESS_NO_INFO}: MariaDB's bulk protocol), the new ids are read back.
   *
   * @param oldToNew old id to new id, in the order of the old ids
   * @return the revived ones of them, old id to new id, in the same order
   */
  default Map<Long, Long> reviveDead(Connection connection, String outbox, Map<Long, Long> oldToNew)
      throws SQLException {
    int[] counts;
    try (PreparedStatement update = connection.prepareStatement("UPDATE outbox_message SET id = ?,"
        + " status = 'PENDING', attempts = 0, next_attempt_at = NULL, last_error = NULL WHERE id = ? AND outbox = ?"
        + " AND status = 'DEAD'")) {
      for (Map.Entry<Long, Long> ids : oldToNew.entrySet()) {
        update.setLong(1, ids.getValue());
        update.setLong(2, ids.getKey());
        update.setString(3, outbox);
        update.addBatch();
      }
      counts = update.executeBatch();
    }
    Map<Long, Long> revived = new LinkedHashMap<>();
    if (counts.length == oldToNew.size() && java.util.Arrays.stream(counts).allMatch(count -> count >= 0)) {
      int entry = 0;
      for (Map.Entry<Long, Long> ids : oldToNew.entrySet()) {
        // 0 if a concurrent admin call revived or removed it meanwhile (its new id then stays unused, a gap like a
        // rolled-back publish leaves).
        if (counts[entry++] > 0) {
          revived.put(ids.getKey(), ids.getValue());
        }
      }
      return revived;
    }
    // The new ids are fresh from the sequence: a row that has one now is a message this batch revived.
    Set<Long> present = new HashSet<>();
    List<Long> newIds = new ArrayList<>(oldToNew.values());
    try (PreparedStatement select = connection.prepareStatement("SELECT id FROM outbox_message WHERE id IN ("
        + Sql.placeholders(newIds.size()) + ")")) {
      Sql.setLongs(select, 1, newIds);
      try (ResultSet rows = select.executeQuery()) {
        while (rows.next()) {
          present.add(rows.getLong(1));
        }
      }
    }
    oldToNew.forEach((oldId, newId) -> {
      if (present.contains(newId)) {
        revived.put(oldId, newId);
      }
    });
    return revived;
  }

  /**
   * Removes the messages of the outbox with those ids: of one partition if {@code partition} is not
   * null, only dead ones if {@code deadOnly}. By default one statement with the ids in a list.
   *
   * @param ids at most {@link AdminStatements#IDS_PER_STATEMENT}
   * @return how many were removed
   */
  default int deleteMessages(Connection connection, String outbox, Integer partition, boolean deadOnly,
      List<Long> ids) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement("DELETE FROM outbox_message WHERE outbox = ?"
        + (partition == null ? "" : " AND partition_no = " + partition) + (deadOnly ? " AND status = 'DEAD'" : "")
        + " AND id IN (" + Sql.placeholders(ids.size()) + ")")) {
      statement.setString(1, outbox);
      Sql.setLongs(statement, 2, ids);
      return statement.executeUpdate();
    }
  }

  /**
   * Tries to take the outbox's retention lock, without waiting, for the rest of this transaction:
   * while one node holds it, no other node's dead-retention deletes (see {@code
   * DeadMessageRetention}). Taken by a node for each chunk; a node that does not get it ends its run.
   * By default a lock of this JVM ({@link LocalLocks}), for the databases that serve one process
   * (H2, SQLite); released by {@link #releaseRetentionLock}.
   *
   * @return whether this transaction holds it now
   */
  default boolean tryRetentionLock(Connection connection, String outbox) throws SQLException {
    return LocalLocks.RETENTION.tryTake(outbox);
  }

  /**
   * Gives the retention lock back before the transaction ends where it is not the transaction's own
   * (MariaDB's {@code GET_LOCK} belongs to the session, which a pool keeps; this JVM's lock); nothing
   * where the transaction's end releases it (PostgreSQL). Called after {@link #tryRetentionLock}
   * returned true, also when the chunk failed.
   */
  default void releaseRetentionLock(Connection connection, String outbox) throws SQLException {
    LocalLocks.RETENTION.release(outbox);
  }

  /**
   * Bounds how long the row locks that follow in this transaction wait, where the database can set
   * that for the transaction (PostgreSQL). A session setting would stay with the pooled connection,
   * so databases that can only do that bound each statement instead ({@link #lockWaitPrefix}).
   */
  void boundLockWait(Connection connection, Duration wait) throws SQLException;

  /**
   * What goes before a locking statement to bound its wait (MariaDB: {@code SET STATEMENT
   * innodb_lock_wait_timeout = n FOR}, at least a second); empty where {@link #boundLockWait} did it or the
   * database has no such setting.
   */
  String lockWaitPrefix(Duration wait);

  /** A time column in a select list, in the form {@link dev.outboxer.cdi.internal.jdbc.Sql#getUtc} reads back. */
  String readTime(String column);

  /** {@code count} new ids from the message sequence, ascending. */
  List<Long> nextMessageIds(Connection connection, int count) throws SQLException;

  /**
   * The names of the sequences in the schema, in any case (compare ignoring it), for the schema
   * check; on SQLite the counter rows of {@code outbox_sequence} that stand in for them (none
   * without the table).
   */
  Set<String> sequenceNames(Connection connection, String catalog, String schema) throws SQLException;

  /**
   * The prepared (two-phase) transactions that hold partitions {@code from} to {@code to - 1} of
   * the outbox, by partition; empty where the database cannot tell (all but PostgreSQL, see
   * {@link PreparedHolders}).
   */
  SortedMap<Integer, PreparedTransaction> preparedHolders(Connection connection, String outbox, int from, int to)
      throws SQLException;

  /** The sequences as the driver's metadata lists them (table type {@code SEQUENCE}): PostgreSQL, MariaDB. */
  static Set<String> sequencesFromMetadata(Connection connection, String catalog, String schema) throws SQLException {
    Set<String> found = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
    try (ResultSet rows = connection.getMetaData().getTables(catalog, schema, null, new String[] {"SEQUENCE"})) {
      while (rows.next()) {
        found.add(rows.getString("TABLE_NAME"));
      }
    }
    return found;
  }
}
