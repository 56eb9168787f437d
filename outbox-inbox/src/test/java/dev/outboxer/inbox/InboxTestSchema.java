package dev.outboxer.inbox;

import dev.outboxer.spi.SqlScripts;
import dev.outboxer.testing.TestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.sqlite.SQLiteDataSource;

/** The inbox tables on a test database, made from the script the jar ships; a plain data source on it. */
final class InboxTestSchema {

  private InboxTestSchema() {}

  /** Drops the inbox tables (only those) and runs the shipped script. */
  static void reset(TestDatabase database) {
    create(database, script(database));
  }

  /** Drops the inbox tables (only those) and runs {@code script}: the shipped one, or one altered by a test. */
  static void create(TestDatabase database, String script) {
    drop(database);
    database.execute(SqlScripts.statements(script).toArray(String[]::new));
  }

  static void drop(TestDatabase database) {
    database.execute("DROP TABLE IF EXISTS outbox_inbox", "DROP TABLE IF EXISTS outbox_inbox_message");
  }

  /** The shipped DDL script (also the Flyway migration, but on SQLite) for the database. */
  static String script(TestDatabase database) {
    String resource = InboxDialect.valueOf(database.name()).ddlResource();
    try (InputStream in = InboxTestSchema.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is not on the class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A non-pooled, non-XA data source: each connection is the caller's own JDBC transaction. */
  static DataSource dataSource(TestDatabase database) throws SQLException {
    switch (database) {
      case POSTGRESQL -> {
        PGSimpleDataSource source = new PGSimpleDataSource();
        source.setURL(database.url());
        source.setUser(database.user());
        source.setPassword(database.password());
        return source;
      }
      case MARIADB -> {
        MariaDbDataSource source = new MariaDbDataSource(database.url());
        source.setUser(database.user());
        source.setPassword(database.password());
        return source;
      }
      case SQLITE -> {
        // As the test kit's URL asks: WAL, and writers wait for the write lock instead of failing.
        SQLiteDataSource source = new SQLiteDataSource();
        source.setUrl(database.url());
        source.setJournalMode("WAL");
        source.setBusyTimeout(60_000);
        return source;
      }
      default -> {
        JdbcDataSource source = new JdbcDataSource();
        source.setURL(database.url());
        source.setUser(database.user());
        source.setPassword(database.password());
        return source;
      }
    }
  }
}
