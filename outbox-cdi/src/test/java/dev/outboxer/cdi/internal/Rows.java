package dev.outboxer.cdi.internal;

import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Plain JDBC on Outboxer's tables, on a connection of its own (so it sees only committed data):
 * how the regression tests look at what was written, without the JPA entities.
 */
public final class Rows {

  private Rows() {}

  /** Deletes every message and every test order. */
  public static void clear(TestDatabase database) {
    update(database, "DELETE FROM outbox_message");
    update(database, "DELETE FROM test_order");
  }

  public static int update(TestDatabase database, String sql, Object... parameters) {
    try (Connection connection = database.connect(); PreparedStatement statement = connection.prepareStatement(sql)) {
      bind(statement, parameters);
      return statement.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  public static long count(TestDatabase database, String table, String where, Object... parameters) {
    List<Map<String, Object>> rows = query(database, "SELECT COUNT(*) AS n FROM " + table
        + (where.isEmpty() ? "" : " WHERE " + where), parameters);
    return ((Number) rows.get(0).get("n")).longValue();
  }

  /** Messages of an outbox. */
  public static long messages(TestDatabase database, String outbox) {
    return count(database, "outbox_message", "outbox = ?", outbox);
  }

  /** One message row by id, column names in lower case, or null. */
  public static Map<String, Object> message(TestDatabase database, long id) {
    // MariaDB's driver shifts a DATETIME it reads by the JVM's time zone: read the times as text there.
    String sql = database == TestDatabase.MARIADB
        ? "SELECT m.*, CAST(next_attempt_at AS CHAR) AS next_attempt_at, CAST(created_at AS CHAR) AS created_at,"
            + " CAST(last_attempt_at AS CHAR) AS last_attempt_at FROM outbox_message m WHERE id = ?"
        : "SELECT * FROM outbox_message WHERE id = ?";
    List<Map<String, Object>> rows = query(database, sql, id);
    return rows.isEmpty() ? null : rows.get(0);
  }

  /** A message's attempts, or -1 if the row is gone. */
  public static int attempts(TestDatabase database, long id) {
    Map<String, Object> row = message(database, id);
    return row == null ? -1 : ((Number) row.get("attempts")).intValue();
  }

  /** A message's status, or null if the row is gone. */
  public static String status(TestDatabase database, long id) {
    Map<String, Object> row = message(database, id);
    return row == null ? null : (String) row.get("status");
  }

  /**
   * Rows as maps; timestamp columns come back as the {@link Instant} they denote: a column without
   * time zone holds UTC fields (Outboxer's rule), one with time zone says its instant itself.
   */
  public static List<Map<String, Object>> query(TestDatabase database, String sql, Object... parameters) {
    try (Connection connection = database.connect(); PreparedStatement statement = connection.prepareStatement(sql)) {
      bind(statement, parameters);
      try (ResultSet result = statement.executeQuery()) {
        ResultSetMetaData meta = result.getMetaData();
        List<Map<String, Object>> rows = new ArrayList<>();
        while (result.next()) {
          Map<String, Object> row = new LinkedHashMap<>();
          for (int column = 1; column <= meta.getColumnCount(); column++) {
            row.put(meta.getColumnLabel(column).toLowerCase(Locale.ROOT), value(result, meta, column));
          }
          rows.add(row);
        }
        return rows;
      }
    } catch (SQLException e) {
      throw new IllegalStateException(sql, e);
    }
  }

  private static Object value(ResultSet result, ResultSetMetaData meta, int column) throws SQLException {
    String type = meta.getColumnTypeName(column).toLowerCase(Locale.ROOT);
    String label = meta.getColumnLabel(column).toLowerCase(Locale.ROOT);
    if ((label.endsWith("_at")) && (type.contains("char") || type.contains("text"))) {
      String text = result.getString(column);
      return text == null ? null : LocalDateTime.parse(text.replace(' ', 'T')).toInstant(ZoneOffset.UTC);
    }
    if (type.contains("timestamptz") || type.contains("with time zone")) {
      OffsetDateTime value = result.getObject(column, OffsetDateTime.class);
      return value == null ? null : value.toInstant();
    }
    if (type.startsWith("timestamp") || type.startsWith("datetime")) {
      LocalDateTime value = result.getObject(column, LocalDateTime.class);
      return value == null ? null : value.toInstant(ZoneOffset.UTC);
    }
    return result.getObject(column);
  }

  private static void bind(PreparedStatement statement, Object... parameters) throws SQLException {
    for (int i = 0; i < parameters.length; i++) {
      statement.setObject(i + 1, parameters[i]);
    }
  }
}
