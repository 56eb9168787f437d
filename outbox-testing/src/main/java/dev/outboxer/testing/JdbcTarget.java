package dev.outboxer.testing;

import dev.outboxer.se.XaDataSources;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Objects;
import java.util.Properties;

/**
 * Where a test's Outboxer connects: a JDBC URL, the credentials, and the driver's XA data source
 * class, through which the connections take part in JTA transactions (Outboxer's rows commit with
 * the business data only in a JTA transaction).
 *
 * <p>{@link #of(String, String, String)} knows the XA data source of the databases Outboxer ships a
 * schema for, from the URL: H2 ({@code jdbc:h2:}), PostgreSQL ({@code jdbc:postgresql:}) and
 * MariaDB or MySQL through the MariaDB driver ({@code jdbc:mariadb:}, {@code jdbc:mysql:}). For
 * any other driver, name its class with the record's constructor. The driver must be on
 * the test class path; nothing is checked until the first connection.
 *
 * @param url the JDBC URL, as the driver takes it
 * @param user the user name, never null (empty for none)
 * @param password the password, never null (empty for none)
 * @param xaDataSourceClass the driver's {@code javax.sql.XADataSource} implementation, with {@code
 *     setUrl}, {@code setUser} and {@code setPassword}
 */
public record JdbcTarget(String url, String user, String password, String xaDataSourceClass) {

  public JdbcTarget {
    Objects.requireNonNull(url, "url");
    user = user == null ? "" : user;
    password = password == null ? "" : password;
    Objects.requireNonNull(xaDataSourceClass, "xaDataSourceClass");
  }

  /**
   * A target whose XA data source class follows from the URL.
   *
   * @throws IllegalArgumentException for a URL of another database, naming the ones known and the
   *     constructor as the fix
   */
  public static JdbcTarget of(String url, String user, String password) {
    return new JdbcTarget(url, user, password, xaDataSourceClassFor(url));
  }

  /** The target of one of Outboxer's own test databases, as configured for this JVM. */
  public static JdbcTarget of(TestDatabase database) {
    return new JdbcTarget(database.url(), database.user(), database.password(), database.xaDataSourceClass());
  }

  /** The same target with another URL (for per-connection settings in the URL). */
  public JdbcTarget withUrl(String otherUrl) {
    return new JdbcTarget(otherUrl, user, password, xaDataSourceClass);
  }

  /** The same target through another XA data source class. */
  public JdbcTarget withXaDataSourceClass(String className) {
    return new JdbcTarget(url, user, password, className);
  }

  /**
   * The name of Outboxer's DDL script for this database ({@code h2}, {@code postgresql} or {@code
   * mariadb}): {@code META-INF/outboxer/ddl/<name>.sql} in outbox-cdi.jar.
   *
   * @throws IllegalArgumentException for a database Outboxer ships no script for
   */
  public String databaseName() {
    String lower = url.toLowerCase(Locale.ROOT);
    if (lower.startsWith("jdbc:h2:")) {
      return "h2";
    }
    if (lower.startsWith("jdbc:postgresql:")) {
      return "postgresql";
    }
    if (lower.startsWith("jdbc:mariadb:") || lower.startsWith("jdbc:mysql:")) {
      return "mariadb";
    }
    throw new IllegalArgumentException("Outboxer ships a schema for H2, PostgreSQL and MariaDB/MySQL; " + url
        + " is none of them (a URL starting with jdbc:h2:, jdbc:postgresql:, jdbc:mariadb: or jdbc:mysql:)");
  }

  /** A plain connection (autocommit, outside any transaction), for schema set-up and clean-up. */
  public Connection connect() throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("user", user);
    properties.setProperty("password", password);
    return DriverManager.getConnection(url, properties);
  }

  /** Hides the password. */
  @Override
  public String toString() {
    return "JdbcTarget[" + url + ", user " + user + ", " + xaDataSourceClass + "]";
  }

  private static String xaDataSourceClassFor(String url) {
    try {
      return XaDataSources.xaDataSourceClassFor(url);
    } catch (IllegalArgumentException unknown) {
      throw new IllegalArgumentException("No known XA data source for " + url + ": Outboxer's test kit knows H2,"
          + " PostgreSQL and MariaDB/MySQL (through the MariaDB driver). For another driver, name its XADataSource"
          + " class: new JdbcTarget(url, user, password, \"<the driver's XADataSource class>\").", unknown);
    }
  }
}
