package dev.outboxer.cdi.internal.store;

import dev.outboxer.cdi.internal.jdbc.Sql;
import dev.outboxer.PreparedTransaction;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/** {@link DialectSql} of H2: a lock row per group, as MariaDB, and the insert read back from {@code FINAL TABLE}. */
final class H2Sql implements DialectSql {

  private static final String INSERT = "SELECT id, partition_no FROM FINAL TABLE (INSERT INTO outbox_message "
      + PublishStatements.COLUMNS
      + " SELECT NEXT VALUE FOR outbox_message_seq, r.outbox, MOD(?, r.partition_count), ?, ?, ?, ?, ?, ?, 'PENDING', 0, ?"
      + " FROM outbox_rules r WHERE r.outbox = ?)";

  @Override
  public String insertMessage(boolean lockGroup) {
    return INSERT;
  }

  /**
   * Locks the group's row if it is there; otherwise inserts it, and if a concurrent publisher
   * inserted it first (the insert waits for that one to end, then finds the key taken), locks theirs.
   */
  @Override
  public void lockGroup(Connection connection, String outbox, String groupKey, LocalDateTime now)
      throws SQLException {
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

  @Override
  public void boundLockWait(Connection connection, Duration wait) {
    // H2's lock timeout (LOCK_TIMEOUT) is the session's, which would stay with the pooled connection: the default
    // holds.
  }

  @Override
  public String lockWaitPrefix(Duration wait) {
    return "";
  }

  @Override
  public String readTime(String column) {
    return column;
  }

  @Override
  public List<Long> nextMessageIds(Connection connection, int count) throws SQLException {
    return nextValues(connection, "VALUES NEXT VALUE FOR outbox_message_seq", count);
  }

  /** Runs a statement that draws one id {@code count} times (MariaDB and H2 have no generate_series). */
  static List<Long> nextValues(Connection connection, String sql, int count) throws SQLException {
    List<Long> ids = new ArrayList<>(count);
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < count; i++) {
        try (ResultSet rows = statement.executeQuery()) {
          rows.next();
          ids.add(rows.getLong(1));
        }
      }
    }
    ids.sort(null);
    return ids;
  }

  /** From H2's information schema: its driver's metadata does not list sequences as tables. */
  @Override
  public Set<String> sequenceNames(Connection connection, String catalog, String schema) throws SQLException {
    Set<String> found = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT SEQUENCE_NAME FROM INFORMATION_SCHEMA.SEQUENCES"
            + " WHERE SEQUENCE_SCHEMA = SCHEMA()")) {
      while (rows.next()) {
        found.add(rows.getString(1));
      }
    }
    return found;
  }

  @Override
  public SortedMap<Integer, PreparedTransaction> preparedHolders(Connection connection, String outbox, int from,
      int to) {
    return new TreeMap<>();
  }
}
