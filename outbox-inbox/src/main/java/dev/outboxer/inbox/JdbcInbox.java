package dev.outboxer.inbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Objects;
import java.util.Set;
import javax.sql.DataSource;

/** The inbox on JDBC: the dialect's statements in the caller's transaction. */
final class JdbcInbox implements Inbox {

  /**
   * The times every supported database stores (MariaDB's DATETIME ends with the year 9999; SQLite
   * compares them as text, which only works with four-digit years): a cut-off outside is clamped.
   */
  private static final Instant EARLIEST_STORED = Instant.parse("0001-01-01T00:00:00Z");
  private static final Instant LATEST_STORED = Instant.parse("9999-12-31T23:59:59.999999Z");

  private final DataSource dataSource;
  private final InboxDialect dialect;
  private final Set<String> byId;
  private final Clock clock;

  private JdbcInbox(DataSource dataSource, InboxDialect dialect, Set<String> byId, Clock clock) {
    this.dataSource = dataSource;
    this.dialect = dialect;
    this.byId = byId;
    this.clock = clock;
  }

  static JdbcInbox create(DataSource dataSource, Set<String> byId, Clock clock, boolean checkSchema) {
    try (Connection connection = dataSource.getConnection()) {
      InboxDialect dialect = InboxDialect.of(connection);
      if (checkSchema) {
        InboxSchema.check(connection, dialect);
      }
      return new JdbcInbox(dataSource, dialect, byId, clock);
    } catch (SQLException e) {
      throw new InboxException("The inbox could not reach its database to check its tables: " + e.getMessage(), e);
    }
  }

  @Override
  public boolean accept(InboxMessage message) {
    try (Connection connection = dataSource.getConnection()) {
      return accept(connection, message);
    } catch (SQLException e) {
      throw failure(message, e);
    }
  }

  @Override
  public boolean accept(Connection connection, InboxMessage message) {
    try {
      requireTransaction(connection, "message " + message.id() + " of outbox '" + message.outbox() + "'");
      LocalDateTime now = LocalDateTime.ofInstant(clock.instant(), ZoneOffset.UTC);
      if (message.grouped() && !byId.contains(message.outbox())) {
        return dialect.acceptInGroup(connection, message, now);
      }
      return dialect.acceptOnce(connection, message, now);
    } catch (SQLException e) {
      throw failure(message, e);
    }
  }

  @Override
  public int purge(Instant processedBefore) {
    try (Connection connection = dataSource.getConnection()) {
      return purge(connection, processedBefore);
    } catch (SQLException e) {
      throw purgeFailure(processedBefore, e);
    }
  }

  @Override
  public int purge(Connection connection, Instant processedBefore) {
    Objects.requireNonNull(processedBefore, "processedBefore");
    try {
      requireTransaction(connection, "a purge");
      if (!processedBefore.isAfter(EARLIEST_STORED)) {
        return 0; // Instant.MIN and the like: nothing is stored before the year 1.
      }
      // Instant.MAX and the like: every time stored is before it, and no database takes it as a value.
      boolean everything = processedBefore.isAfter(LATEST_STORED);
      int removed = 0;
      for (String table : InboxSchema.TABLES.keySet()) {
        try (PreparedStatement delete = connection.prepareStatement(
            "DELETE FROM " + table + (everything ? "" : " WHERE processed_at < ?"))) {
          if (!everything) {
            delete.setObject(1, LocalDateTime.ofInstant(processedBefore, ZoneOffset.UTC));
          }
          removed += delete.executeUpdate();
        }
      }
      return removed;
    } catch (SQLException e) {
      throw purgeFailure(processedBefore, e);
    }
  }

  /**
   * The inbox's retention on its own data source, dialect and clock: ids processed longer ago than
   * {@code retention} forgotten {@code chunkSize} rows a transaction.
   */
  InboxRetention retention(java.time.Duration retention, int chunkSize) {
    return new InboxRetention(dataSource, dialect, clock, retention, chunkSize);
  }

  private InboxException purgeFailure(Instant processedBefore, SQLException e) {
    return new InboxException("The inbox could not forget what it accepted before " + processedBefore + ": "
        + e.getMessage() + " (SQLState " + e.getSQLState() + ")" + schemaHint(e), e);
  }

  /**
   * An accept in auto-commit mode would be committed at once, whatever becomes of the processing:
   * a failure after it would lose the message. Refuse instead.
   */
  private static void requireTransaction(Connection connection, String what) throws SQLException {
    if (connection.getAutoCommit()) {
      throw new InboxException("The inbox needs a transaction for " + what + ", but its connection is in"
          + " auto-commit mode: call it inside the consumer's transaction (a JTA transaction with a JTA data"
          + " source, or a JDBC connection with setAutoCommit(false) passed to accept(Connection, InboxMessage)),"
          + " so that the accept commits or rolls back with the processing");
    }
  }

  private InboxException failure(InboxMessage message, SQLException e) {
    return new InboxException("The inbox could not decide on message " + message.id() + " of group '"
        + InboxMessage.printable(message.groupKey()) + "' of outbox '" + message.outbox() + "': " + e.getMessage()
        + " (SQLState " + e.getSQLState() + ")" + schemaHint(e) + ". Roll back the consumer's transaction; the"
        + " message will be delivered again", e);
  }

  /** For a missing table, column or key: what to run. Empty for any other failure. */
  private String schemaHint(SQLException e) {
    return !InboxSchema.isSchemaFailure(e) ? "" : ". The inbox tables are missing or incomplete: "
        + InboxSchema.howToCreate(dialect) + ". Inbox.builder(...).build() checks them unless checkSchema(false),"
        + " as the CDI inbox does unless outbox.inbox.schema=none";
  }

  @Override
  public String toString() {
    return "Inbox[" + dialect.configValue() + (byId.isEmpty() ? "" : ", by id: " + byId) + "]";
  }
}
