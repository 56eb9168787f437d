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

  /** The columns a publish writes, in the order of every database's insert ({@link DialectSql#insertMessage}). */
  static final String COLUMNS = "(id, outbox, partition_no, partition_key, group_key, message_type,"
      + " content_type, payload, headers, status, attempts, created_at)";

  @Inject Database database;

  /** The id and partition a message got. */
  public record Inserted(long id, int partition) {}

  /**
   * A message to insert. Times are UTC; {@code notBefore} is null for a message to relay as soon as
   * it commits.
   */
  public record NewMessage(String outbox, int partitionKey, String groupKey, String type, String contentType,
      byte[] payload, String headers, LocalDateTime createdAt, LocalDateTime notBefore) {}

  /**
   * Inserts the message; with {@code serializeWrites} and a group key, first waits for the group's
   * write lock, which is held until the caller's transaction ends. On SQLite the single writer
   * already serialises every publisher: {@code serializeWrites} changes nothing there.
   */
  public Inserted insert(Connection connection, NewMessage message, boolean serializeWrites) throws SQLException {
    DialectSql dialect = database.dialect().sql();
    boolean lock = serializeWrites && message.groupKey() != null;
    dialect.beforeInsert(connection, message, lock);
    String sql = dialect.insertMessage(lock);
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
      if (lock && dialect.groupLockInInsert()) {
        statement.setLong(10, GroupHash.lockKey(message.outbox(), message.groupKey()));
      }
      try (ResultSet rows = statement.executeQuery()) {
        if (!rows.next()) {
          throw new OutboxException("Outbox '" + message.outbox() + "': its row in outbox_rules is missing, so the"
              + " message has no partition. Outboxer creates the row at start-up: was it deleted, or does this"
              + " application write to another database than the one it started with? Nothing was written.");
        }
        Inserted inserted = new Inserted(rows.getLong(1), rows.getInt(2));
        if (message.notBefore() != null) {
          delay(connection, inserted.id(), message.notBefore());
        }
        return inserted;
      }
    }
  }

  /**
   * Makes the new row wait for its time as a message waiting for its retry does (attempts still 0),
   * in the same transaction, so no reader ever sees it without its time. A second statement only
   * for delayed messages: the insert every other publish runs stays as it is on every database.
   */
  private static void delay(Connection connection, long id, LocalDateTime notBefore) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(
        "UPDATE outbox_message SET next_attempt_at = ? WHERE id = ?")) {
      Sql.setUtc(statement, 1, notBefore);
      statement.setLong(2, id);
      statement.executeUpdate();
    }
  }
}
