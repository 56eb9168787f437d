package dev.outboxer.chaos;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The truth of what was committed: one row per published message, written by the publisher in the
 * same JTA transaction as the message, in the outbox database. {@code seq} is the message's place
 * in its group, taken from a per-group counter row after {@code publish} (which holds the group's
 * write lock with {@code serialize-writes}): it is the group's commit order, found independently
 * of the outbox ids, so a broken write lock shows as ids out of {@code seq} order.
 */
final class Ledger {

  /** One committed message. */
  record Entry(long id, String group, int seq, int partition) {}

  private Ledger() {}

  static String group(int number) {
    return String.format("g%04d", number);
  }

  static void reset(Connection connection, int groups) throws SQLException {
    connection.setAutoCommit(true);
    try (Statement statement = connection.createStatement()) {
      statement.execute("DROP TABLE IF EXISTS chaos_ledger");
      statement.execute("DROP TABLE IF EXISTS chaos_group_seq");
      statement.execute("CREATE TABLE chaos_ledger (message_id BIGINT NOT NULL PRIMARY KEY, group_key VARCHAR(100) NOT NULL,"
          + " seq INTEGER NOT NULL, partition_no INTEGER NOT NULL, tx BIGINT NOT NULL)");
      statement.execute("CREATE TABLE chaos_group_seq (group_key VARCHAR(100) NOT NULL PRIMARY KEY, last_seq INTEGER NOT NULL)");
    }
    try (PreparedStatement insert = connection.prepareStatement(
        "INSERT INTO chaos_group_seq (group_key, last_seq) VALUES (?, 0)")) {
      for (int group = 0; group < groups; group++) {
        insert.setString(1, group(group));
        insert.addBatch();
      }
      insert.executeBatch();
    }
  }

  /** Records a published message inside the publishing transaction; returns its place in the group. */
  static int record(Connection connection, long id, String group, int partition, long tx) throws SQLException {
    try (PreparedStatement bump = connection.prepareStatement(
        "UPDATE chaos_group_seq SET last_seq = last_seq + 1 WHERE group_key = ?")) {
      bump.setString(1, group);
      if (bump.executeUpdate() != 1) {
        throw new IllegalStateException("No sequence row for group '" + group + "'. Indicates a bug in the set-up.");
      }
    }
    int seq;
    try (PreparedStatement read = connection.prepareStatement("SELECT last_seq FROM chaos_group_seq WHERE group_key = ?")) {
      read.setString(1, group);
      try (ResultSet row = read.executeQuery()) {
        row.next();
        seq = row.getInt(1);
      }
    }
    try (PreparedStatement insert = connection.prepareStatement(
        "INSERT INTO chaos_ledger (message_id, group_key, seq, partition_no, tx) VALUES (?, ?, ?, ?, ?)")) {
      insert.setLong(1, id);
      insert.setString(2, group);
      insert.setInt(3, seq);
      insert.setInt(4, partition);
      insert.setLong(5, tx);
      insert.executeUpdate();
    }
    return seq;
  }

  static List<Entry> read(Connection connection) throws SQLException {
    List<Entry> entries = new ArrayList<>();
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(
            "SELECT message_id, group_key, seq, partition_no FROM chaos_ledger ORDER BY group_key, seq")) {
      while (rows.next()) {
        entries.add(new Entry(rows.getLong(1), rows.getString(2), rows.getInt(3), rows.getInt(4)));
      }
    }
    return entries;
  }
}
