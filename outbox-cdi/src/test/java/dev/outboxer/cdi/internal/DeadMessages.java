package dev.outboxer.cdi.internal;

import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** Dead messages written straight into the table, many at once, for the tests at scale (admin, dead-retention). */
public final class DeadMessages {

  private DeadMessages() {}

  /**
   * Inserts {@code count} dead messages of the outbox, ids 1..count above the message sequence's
   * value, message n of group {@code "g" + (n % groups)}, and moves the sequence past them
   * (PostgreSQL or MariaDB). The sequence never goes back: a running worker's cursor has passed
   * every id it handed out.
   *
   * @return the first id
   */
  public static long insert(TestDatabase database, Connection connection, String outbox, int count, int groups)
      throws SQLException {
    boolean postgres = database == TestDatabase.POSTGRESQL;
    long base;
    try (PreparedStatement statement = connection.prepareStatement(postgres
        ? "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM outbox_message_seq"
        : "SELECT NEXT VALUE FOR outbox_message_seq");
        java.sql.ResultSet rows = statement.executeQuery()) {
      rows.next();
      base = rows.getLong(1);
    }
    String insert = postgres
        ? "INSERT INTO outbox_message (id, outbox, partition_no, partition_key, group_key, message_type, content_type,"
            + " payload, status, attempts, created_at, last_error) SELECT n + " + base + ", ?, 0, n % 100, 'g' || (n % ?), 't',"
            + " 'text/plain', '\\x61'::bytea, 'DEAD', 1, TIMESTAMP '2026-01-01 00:00:00', 'refused'"
            + " FROM generate_series(1, " + count + ") n"
        : "INSERT INTO outbox_message (id, outbox, partition_no, partition_key, group_key, message_type, content_type,"
            + " payload, status, attempts, created_at, last_error) SELECT seq + " + base + ", ?, 0, seq % 100, CONCAT('g', seq % ?),"
            + " 't', 'text/plain', 'a', 'DEAD', 1, '2026-01-01 00:00:00', 'refused' FROM seq_1_to_" + count;
    try (PreparedStatement statement = connection.prepareStatement(insert)) {
      statement.setString(1, outbox);
      statement.setInt(2, groups);
      statement.executeUpdate();
    }
    String sequence = postgres ? "SELECT setval('outbox_message_seq', " + (base + count) + ")"
        : "SELECT SETVAL(outbox_message_seq, " + (base + count) + ")";
    try (PreparedStatement statement = connection.prepareStatement(sequence)) {
      statement.executeQuery().close();
    }
    return base + 1;
  }
}
