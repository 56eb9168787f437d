package dev.outboxer.spi;

import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Optional;

/**
 * The databases Outboxer ships a schema for, and the one rule that tells them from a JDBC
 * connection. The core (its outbox tables) and the inbox (its tables in the consumer's database)
 * both recognise their database here, so that they accept the same databases and refuse the others
 * with the same words.
 *
 * <p>The rule, on the driver's product name and version ({@link DatabaseMetaData}), ignoring case:
 * a name with "postgres" is PostgreSQL; a name or version with "mariadb" is MariaDB (MySQL's
 * driver calls a MariaDB server "MySQL" and puts "MariaDB" in the version); any other "mysql" is
 * MySQL, which is not supported: it has no sequences, which the core draws message ids from; a
 * name with "h2" is H2, one with "sqlite" SQLite. Everything else is not supported.
 *
 * <p>Not checked here: the version of the database (PostgreSQL 12+, MariaDB 10.6+, H2 2.x,
 * SQLite 3.35+ are what is tested), and whether Outboxer's tables exist.
 */
public enum SupportedDatabase {
  /** PostgreSQL 12 or later. */
  POSTGRESQL,
  /** MariaDB 10.6 or later (not MySQL). */
  MARIADB,
  /** H2 2.x. */
  H2,
  /** SQLite 3.35 or later, with the xerial sqlite-jdbc driver. */
  SQLITE;

  /** What the sentence of a refusal lists as supported. */
  static final String SUPPORTED = "Outboxer supports PostgreSQL 12+, MariaDB 10.6+, H2 2.x and SQLite 3.35+";

  /**
   * The name in settings ({@code outbox.database}) and in the paths of the shipped scripts
   * ({@code META-INF/outboxer/ddl/<name>.sql}): {@code postgresql}, {@code mariadb}, {@code h2},
   * {@code sqlite}.
   */
  public String configValue() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The database of a {@link #configValue()}, ignoring case and surrounding blanks; empty for any other text. */
  public static Optional<SupportedDatabase> fromConfigValue(String value) {
    for (SupportedDatabase database : values()) {
      if (database.configValue().equalsIgnoreCase(value.strip())) {
        return Optional.of(database);
      }
    }
    return Optional.empty();
  }

  /**
   * The database of a connection, by the rule in the class description.
   *
   * @throws IllegalArgumentException if it is not supported, with a message that names the product
   *     and says what is supported (and, for MySQL, why not)
   * @throws SQLException if the driver cannot tell its product name or version
   */
  public static SupportedDatabase of(DatabaseMetaData metadata) throws SQLException {
    return of(metadata.getDatabaseProductName(), metadata.getDatabaseProductVersion());
  }

  /**
   * The database of a JDBC product name and version ({@link DatabaseMetaData#getDatabaseProductName()},
   * {@link DatabaseMetaData#getDatabaseProductVersion()}; a null one counts as empty), by the rule
   * in the class description.
   *
   * @throws IllegalArgumentException if it is not supported, with a message that names the product
   *     and says what is supported (and, for MySQL, why not)
   */
  public static SupportedDatabase of(String productName, String productVersion) {
    String name = productName == null ? "" : productName.toLowerCase(Locale.ROOT);
    String version = productVersion == null ? "" : productVersion.toLowerCase(Locale.ROOT);
    String product = ((productName == null ? "" : productName) + " "
        + (productVersion == null ? "" : productVersion)).strip();
    if (name.contains("postgres")) {
      return POSTGRESQL;
    }
    if (name.contains("mariadb") || version.contains("mariadb")) {
      return MARIADB;
    }
    if (name.contains("mysql")) {
      throw new IllegalArgumentException("The database '" + product + "' is MySQL, which Outboxer does not support:"
          + " it has no sequences, from which Outboxer draws message ids. " + SUPPORTED + ". A MariaDB server reached"
          + " through MySQL's driver would say MariaDB in its version; this one does not");
    }
    if (name.contains("h2")) {
      return H2;
    }
    if (name.contains("sqlite")) {
      return SQLITE;
    }
    throw new IllegalArgumentException("The database '" + product + "' is not supported: " + SUPPORTED
        + " (Derby support ended in 0.2; use H2 for embedded demos)");
  }
}
