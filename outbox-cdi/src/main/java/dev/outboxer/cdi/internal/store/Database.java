package dev.outboxer.cdi.internal.store;

import dev.outboxer.OutboxException;
import dev.outboxer.cdi.internal.config.OutboxConfiguration;
import dev.outboxer.cdi.internal.jdbc.Jdbc;
import dev.outboxer.cdi.internal.tx.Transactions;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * Which database the application's EntityManager talks to: from {@code outbox.database}, or from
 * the JDBC connection's metadata, read once at start-up.
 */
@ApplicationScoped
public class Database {

  private static final Logger LOG = Logger.getLogger(Database.class.getName());

  @Inject Jdbc jdbc;
  @Inject Transactions transactions;
  @Inject OutboxConfiguration configuration;

  private volatile Dialect dialect;
  private volatile String productVersion = "";

  /** The dialect; detected on first use (in a transaction of its own, or in the caller's). */
  public Dialect dialect() {
    Dialect known = dialect;
    if (known == null) {
      known = configured().orElseGet(this::detect);
      dialect = known;
    }
    return known;
  }

  /** The database's product name and version, as its JDBC driver reports it (empty before detection). */
  public String productVersion() {
    return productVersion;
  }

  private Optional<Dialect> configured() {
    return configuration.database().flatMap(Dialect::fromConfig);
  }

  private Dialect detect() {
    String product;
    try {
      if (transactions.isActive()) {
        product = readProduct();
      } else {
        product = transactions.inNewTransaction(Duration.ofSeconds(30), this::readProduct);
      }
    } catch (Exception e) {
      throw new OutboxException("Outboxer could not read which database the EntityManager uses (" + e
          + "): set outbox.database to postgresql, mariadb, h2 or sqlite", e);
    }
    Dialect found = Dialect.fromProductName(product).orElseThrow(() -> new OutboxException(
        "Outboxer does not support the database '" + product + "': supported are PostgreSQL 12+, MariaDB 10.6+, H2"
            + " 2.x and SQLite 3.35+ (MySQL has no sequences; Derby support ended in 0.2, use H2 for embedded demos)"));
    LOG.info("Outboxer detected the database: " + found.configValue() + " (" + product + ")");
    return found;
  }

  private String readProduct() throws Exception {
    String product = jdbc.call(connection -> connection.getMetaData().getDatabaseProductName() + " "
        + connection.getMetaData().getDatabaseProductVersion());
    productVersion = product;
    return product;
  }
}
