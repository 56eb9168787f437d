package dev.outboxer.cdi.internal.store;

import dev.outboxer.PreparedTransaction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Which prepared (two-phase) transaction holds a partition's row, on PostgreSQL.
 *
 * <p>A transaction that locks a row ({@code FOR UPDATE}, as the claim does, or an update) writes its
 * transaction id into the row's {@code xmax}; while it is not finished the row version others see
 * keeps that {@code xmax}, and a prepared transaction is listed in {@code pg_prepared_xacts} under
 * the same id ({@code transaction}). So {@code p.xmax = x.transaction} names the prepared transaction
 * that holds row {@code p}: checked with {@code FOR UPDATE}, {@code FOR UPDATE SKIP LOCKED} and the
 * claim's {@code UPDATE} (PostgreSQL 15). It does not see a lock taken inside a savepoint (the row
 * then carries the subtransaction's id, which {@code pg_prepared_xacts} does not list) nor a lock
 * shared by several transactions (a MultiXact id): Outboxer takes neither on {@code
 * outbox_partition}. {@code pg_locks} does not help: a row lock nobody waits for is not in it, and
 * a prepared transaction's locks keep their original {@code virtualtransaction} there (with no pid),
 * not the {@code -1/...} of older releases. {@code pg_prepared_xacts} is readable by every user.
 *
 * <p>MariaDB lists prepared XA transactions ({@code XA RECOVER}, needing a privilege on MySQL) but
 * does not say which rows they lock; other databases are not asked: PostgreSQL only.
 */
final class PreparedHolders {

  /** Parameters: outbox, the first partition and the one after the last. */
  private static final String HOLDERS = "SELECT p.partition_no, x.gid, x.prepared, x.owner, x.database"
      + " FROM outbox_partition p JOIN pg_prepared_xacts x ON x.transaction = p.xmax"
      + " WHERE p.outbox = ? AND p.partition_no >= ? AND p.partition_no < ?";

  private PreparedHolders() {}

  /**
   * The prepared transactions holding partitions {@code from} to {@code to - 1} of the outbox, by
   * partition (PostgreSQL only: {@link PostgresSql#preparedHolders}).
   */
  static SortedMap<Integer, PreparedTransaction> of(Connection connection, String outbox, int from, int to)
      throws SQLException {
    SortedMap<Integer, PreparedTransaction> holders = new TreeMap<>();
    try (PreparedStatement statement = connection.prepareStatement(HOLDERS)) {
      statement.setString(1, outbox);
      statement.setInt(2, from);
      statement.setInt(3, to);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          OffsetDateTime prepared = rows.getObject(3, OffsetDateTime.class);
          holders.put(rows.getInt(1), new PreparedTransaction(rows.getString(2),
              prepared == null ? null : prepared.toInstant(), rows.getString(4), rows.getString(5)));
        }
      }
    }
    return holders;
  }
}
