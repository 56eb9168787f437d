package dev.outboxer.testing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads (and, for test set-up, clears) Outboxer's tables with plain JDBC, outside any transaction:
 * what a test sees is what is committed. Times are UTC, as stored.
 *
 * <pre>{@code
 * OutboxTables tables = new OutboxTables(TestDatabase.POSTGRESQL);
 * assertThat(tables.messages("orders")).extracting(StoredMessage::groupKey).containsExactly("order:1");
 * }</pre>
 */
public final class OutboxTables {

  /** A stored message row. */
  public record StoredMessage(long id, String outbox, int partition, int partitionKey, String groupKey, String type,
      String contentType, byte[] payload, String headers, String status, int attempts, LocalDateTime nextAttemptAt,
      LocalDateTime createdAt, LocalDateTime lastAttemptAt, String lastError) {}

  /** A partition row: the last claim's token and owner. */
  public record StoredPartition(int partition, long fencingToken, String ownerNode, String ownerInstance,
      LocalDateTime claimedAt) {}

  /** An outbox's stored rules. */
  public record StoredRules(String ordering, int partitionCount, int layoutVersion, Long maxAttempts,
      String updatedBy) {}

  private static final String COLUMNS = "id, outbox, partition_no, partition_key, group_key, message_type,"
      + " content_type, payload, headers, status, attempts, %s, %s, %s, last_error";

  private final TestDatabase database;

  public OutboxTables(TestDatabase database) {
    this.database = database;
  }

  /** Every message of an outbox, by id. */
  public List<StoredMessage> messages(String outbox) {
    return query("SELECT " + columns() + " FROM outbox_message WHERE outbox = ? ORDER BY id", outbox);
  }

  public Optional<StoredMessage> message(long id) {
    List<StoredMessage> found = query("SELECT " + columns() + " FROM outbox_message WHERE id = ?", id);
    return found.stream().findFirst();
  }

  private String columns() {
    return String.format(COLUMNS, time("next_attempt_at"), time("created_at"), time("last_attempt_at"));
  }

  /**
   * A time column as selected: as text on MariaDB, whose driver shifts a DATETIME it reads by the
   * JVM's time zone (Outboxer does the same).
   */
  private String time(String column) {
    return database == TestDatabase.MARIADB ? "CAST(" + column + " AS CHAR)" : column;
  }

  private static LocalDateTime utc(ResultSet rows, int column) throws SQLException {
    Object value = rows.getObject(column);
    if (value instanceof String text) {
      return LocalDateTime.parse(text.replace(' ', 'T'));
    }
    return value == null ? null : rows.getObject(column, LocalDateTime.class);
  }

  /** How many messages the table holds, of every outbox. */
  public long countMessages() {
    try (Connection connection = database.connect();
        PreparedStatement statement = connection.prepareStatement("SELECT COUNT(*) FROM outbox_message");
        ResultSet rows = statement.executeQuery()) {
      rows.next();
      return rows.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  public List<StoredPartition> partitions(String outbox) {
    List<StoredPartition> partitions = new ArrayList<>();
    try (Connection connection = database.connect();
        PreparedStatement statement = connection.prepareStatement("SELECT partition_no, fencing_token, owner_node,"
            + " owner_instance, " + time("claimed_at") + " FROM outbox_partition WHERE outbox = ? ORDER BY partition_no")) {
      statement.setString(1, outbox);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          partitions.add(new StoredPartition(rows.getInt(1), rows.getLong(2), rows.getString(3), rows.getString(4),
              utc(rows, 5)));
        }
      }
      return partitions;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  public Optional<StoredRules> rules(String outbox) {
    try (Connection connection = database.connect();
        PreparedStatement statement = connection.prepareStatement("SELECT ordering_mode, partition_count,"
            + " layout_version, max_attempts, updated_by FROM outbox_rules WHERE outbox = ?")) {
      statement.setString(1, outbox);
      try (ResultSet rows = statement.executeQuery()) {
        if (!rows.next()) {
          return Optional.empty();
        }
        long maxAttempts = rows.getLong(4);
        Long attempts = rows.wasNull() ? null : maxAttempts;
        return Optional.of(new StoredRules(rows.getString(1), rows.getInt(2), rows.getInt(3), attempts,
            rows.getString(5)));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Deletes every message (test set-up); the rules and partitions stay. */
  public void deleteAllMessages() {
    execute("DELETE FROM outbox_message");
  }

  /** Runs a statement with autocommit, for tests that corrupt or adjust rows on purpose. */
  public int execute(String sql, Object... parameters) {
    try (Connection connection = database.connect();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < parameters.length; i++) {
        statement.setObject(i + 1, parameters[i]);
      }
      return statement.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("Could not run " + sql + " on " + database, e);
    }
  }

  private List<StoredMessage> query(String sql, Object parameter) {
    List<StoredMessage> messages = new ArrayList<>();
    try (Connection connection = database.connect();
        PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setObject(1, parameter);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          messages.add(new StoredMessage(rows.getLong(1), rows.getString(2), rows.getInt(3), rows.getInt(4),
              rows.getString(5), rows.getString(6), rows.getString(7), rows.getBytes(8), rows.getString(9),
              rows.getString(10), rows.getInt(11), utc(rows, 12), utc(rows, 13), utc(rows, 14), rows.getString(15)));
        }
      }
      return messages;
    } catch (SQLException e) {
      throw new IllegalStateException("Could not read the outbox tables of " + database, e);
    }
  }
}
