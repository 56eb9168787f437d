package dev.outboxer.cdi.internal.jdbc;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.LocalDateTime;
import java.util.Collection;
import java.util.StringJoiner;

/** Small JDBC helpers shared by the stores. */
public final class Sql {

  private Sql() {}

  /**
   * Binds a UTC time as a zone-less timestamp. {@code setObject(LocalDateTime)} is passed to the
   * database as it is by the PostgreSQL, MariaDB and H2 drivers, whatever the JVM's and the
   * session's time zones; {@code java.sql.Timestamp} would be converted through the JVM's zone and
   * shift times in a daylight-saving gap by an hour.
   */
  public static void setUtc(PreparedStatement statement, int index, LocalDateTime utc) throws SQLException {
    if (utc == null) {
      statement.setNull(index, Types.TIMESTAMP);
    } else {
      statement.setObject(index, utc);
    }
  }

  /**
   * Reads a UTC time. MariaDB's driver converts a DATETIME it reads through the JVM's time zone
   * (a time in a daylight-saving gap comes back an hour late, even from {@code getString}), so on
   * MariaDB Outboxer selects its times as text ({@code CAST(column AS CHAR)}, the store's
   * {@code MariaDbSql.readTime}) and this parses them.
   */
  public static LocalDateTime getUtc(ResultSet rows, int column) throws SQLException {
    int type = rows.getMetaData().getColumnType(column);
    if (type == Types.VARCHAR || type == Types.CHAR || type == Types.LONGVARCHAR || type == Types.NVARCHAR) {
      String text = rows.getString(column);
      return text == null ? null : LocalDateTime.parse(text.replace(' ', 'T'));
    }
    return rows.getObject(column, LocalDateTime.class);
  }

  public static void setNullableString(PreparedStatement statement, int index, String value) throws SQLException {
    if (value == null) {
      statement.setNull(index, Types.VARCHAR);
    } else {
      statement.setString(index, value);
    }
  }

  public static void setNullableLong(PreparedStatement statement, int index, Long value) throws SQLException {
    if (value == null) {
      statement.setNull(index, Types.BIGINT);
    } else {
      statement.setLong(index, value);
    }
  }

  /** {@code ?, ?, ?} for an IN list of the given size (at least 1). */
  public static String placeholders(int count) {
    StringJoiner joiner = new StringJoiner(", ");
    for (int i = 0; i < count; i++) {
      joiner.add("?");
    }
    return joiner.toString();
  }

  /** Binds longs from {@code index} on; returns the next free index. */
  public static int setLongs(PreparedStatement statement, int index, Collection<Long> values) throws SQLException {
    int next = index;
    for (long value : values) {
      statement.setLong(next++, value);
    }
    return next;
  }

  /** SQLState classes that mean "try again": serialization failure and deadlock. */
  public static boolean isTransient(SQLException e) {
    return anySqlException(e, sql -> "40001".equals(sql.getSQLState()) || "40P01".equals(sql.getSQLState())
        || sql.getErrorCode() == 1213); // MariaDB ER_LOCK_DEADLOCK
  }

  /** Whether a failure is a deadlock the database broke by rolling back this transaction. */
  public static boolean isDeadlock(Throwable e) {
    return anySqlException(e, sql -> "40P01".equals(sql.getSQLState()) || sql.getErrorCode() == 1213);
  }

  /**
   * Whether any SQL exception among the causes of {@code e} and the exceptions chained to them as
   * next ({@link SQLException#getNextException}) matches: a failed batch
   * ({@link java.sql.BatchUpdateException}) reports the database's own error there, and its own
   * state may say nothing of it.
   */
  private static boolean anySqlException(Throwable e, java.util.function.Predicate<SQLException> test) {
    java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    java.util.ArrayDeque<Throwable> pending = new java.util.ArrayDeque<>();
    pending.add(e);
    while (!pending.isEmpty()) {
      Throwable next = pending.poll();
      if (next == null || !seen.add(next)) {
        continue;
      }
      if (next instanceof SQLException sql) {
        if (test.test(sql)) {
          return true;
        }
        if (sql.getNextException() != null) {
          pending.add(sql.getNextException());
        }
      }
      if (next.getCause() != null) {
        pending.add(next.getCause());
      }
    }
    return false;
  }
}
