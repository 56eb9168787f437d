package dev.outboxer.cdi.internal.store;

import dev.outboxer.cdi.internal.jdbc.Sql;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The set-based statements behind the admin operations on many dead messages: a chunk of them read
 * in id order, revived or removed by a statement or a batch each, not row by row. All run in the
 * caller's transaction; the admin bean decides what a transaction holds (a chunk, or the caller's
 * whole call).
 *
 * <p>No range is locked: the dead messages are found by a plain (consistent, non-locking) read and
 * then changed by their primary keys, if they are still dead (a concurrent admin call may have
 * revived or removed some meanwhile; those are left out of the result). On MariaDB a locking read
 * or a change by group would lock the rows it scans and the gaps between them under REPEATABLE
 * READ, and hold up every publish until the transaction ends.
 */
@ApplicationScoped
public class DeadMessageStatements {

  /** A dead message's id and group key (null if ungrouped). */
  public record DeadRow(long id, String groupKey) {}

  @Inject Database database;

  /**
   * What a chunk's change does first: on SQLite, take the database's write lock (a read and then a
   * write could fail to upgrade, SQLITE_BUSY, if a publisher wrote meanwhile); nothing elsewhere.
   *
   * @param operation what the change does, for the error: "revived", "discarded"
   */
  public void beginChange(Connection connection, String outbox, String operation) throws SQLException {
    if (database.dialect().singleWriter()) {
      AdminStatements.takeWriteLock(connection, outbox, operation);
    }
  }

  /**
   * Up to {@code limit} dead messages of the outbox with ids above {@code afterId}, in id order: of
   * the ids given if any (then at most as many as given), of the group given if any. A plain read.
   */
  public List<DeadRow> read(Connection connection, String outbox, List<Long> ids, String groupKey, long afterId,
      int limit) throws SQLException {
    return read(connection, outbox, ids, groupKey, null, afterId, limit);
  }

  /**
   * Up to {@code limit} dead messages of the outbox that died before {@code diedBefore} (UTC), with
   * ids above {@code afterId}, in id order. A message died at its last attempt ({@code
   * last_attempt_at}); one without (written by hand, not by a worker) counts from its creation. A
   * plain read.
   */
  public List<DeadRow> readDiedBefore(Connection connection, String outbox, LocalDateTime diedBefore, long afterId,
      int limit) throws SQLException {
    return read(connection, outbox, null, null, java.util.Objects.requireNonNull(diedBefore), afterId, limit);
  }

  private List<DeadRow> read(Connection connection, String outbox, List<Long> ids, String groupKey,
      LocalDateTime diedBefore, long afterId, int limit) throws SQLException {
    StringBuilder select = new StringBuilder("SELECT id, group_key FROM outbox_message WHERE outbox = ?"
        + " AND status = 'DEAD' AND id > ?");
    if (diedBefore != null) {
      select.append(" AND COALESCE(last_attempt_at, created_at) < ?");
    }
    if (ids != null) {
      if (ids.isEmpty()) {
        return List.of();
      }
      select.append(" AND id IN (").append(Sql.placeholders(ids.size())).append(')');
    }
    if (groupKey != null) {
      select.append(" AND group_key = ?");
    }
    select.append(" ORDER BY id LIMIT ?");
    List<DeadRow> dead = new ArrayList<>();
    try (PreparedStatement statement = connection.prepareStatement(select.toString())) {
      statement.setString(1, outbox);
      statement.setLong(2, afterId);
      int next = 3;
      if (diedBefore != null) {
        Sql.setUtc(statement, next++, diedBefore);
      }
      if (ids != null) {
        next = Sql.setLongs(statement, next, ids);
      }
      if (groupKey != null) {
        statement.setString(next++, groupKey);
      }
      statement.setInt(next, limit);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          dead.add(new DeadRow(rows.getLong(1), rows.getString(2)));
        }
      }
    }
    return dead;
  }

  /**
   * Makes the dead messages pending again as new messages (see {@link AdminStatements#revive}):
   * with {@code lockGroups}, the groups' serialize-writes locks first (in one order, so that two
   * revives never deadlock over them), then new ids from the sequence in the order of the old ids,
   * then one set-based change.
   *
   * @param dead in id order
   * @return the revived messages as old id to new id, in the order of the old ids
   */
  public Map<Long, Long> revive(Connection connection, String outbox, List<DeadRow> dead, LocalDateTime now,
      boolean lockGroups) throws SQLException {
    if (dead.isEmpty()) {
      return Map.of();
    }
    DialectSql sql = database.dialect().sql();
    if (lockGroups && !database.dialect().singleWriter()) {
      TreeSet<String> groups = new TreeSet<>();
      dead.stream().map(DeadRow::groupKey).filter(java.util.Objects::nonNull).forEach(groups::add);
      sql.lockGroups(connection, outbox, groups, now);
    }
    List<Long> newIds = sql.nextMessageIds(connection, dead.size());
    Map<Long, Long> oldToNew = new LinkedHashMap<>();
    for (int i = 0; i < dead.size(); i++) {
      oldToNew.put(dead.get(i).id(), newIds.get(i));
    }
    return sql.reviveDead(connection, outbox, oldToNew);
  }

  /**
   * Tries to take the outbox's retention lock for this transaction, without waiting: one node's
   * dead-retention at a time. Where it is the session's, {@link #releaseRetentionLock} must follow
   * in the same transaction.
   *
   * @return whether this transaction holds it
   */
  public boolean tryRetentionLock(Connection connection, String outbox) throws SQLException {
    return database.dialect().sql().tryRetentionLock(connection, outbox);
  }

  /** Gives back the retention lock {@link #tryRetentionLock} took, where the transaction's end does not. */
  public void releaseRetentionLock(Connection connection, String outbox) throws SQLException {
    database.dialect().sql().releaseRetentionLock(connection, outbox);
  }

  /**
   * Removes those of the ids that are still dead messages of the outbox, in one statement.
   *
   * @return how many were removed
   */
  public int discard(Connection connection, String outbox, List<Long> ids) throws SQLException {
    if (ids.isEmpty()) {
      return 0;
    }
    return database.dialect().sql().deleteMessages(connection, outbox, null, true, ids);
  }
}
