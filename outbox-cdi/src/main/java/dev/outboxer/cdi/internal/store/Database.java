package dev.outboxer.cdi.internal.store;

import dev.outboxer.OutboxException;
import dev.outboxer.cdi.internal.config.OutboxConfiguration;
import dev.outboxer.cdi.internal.jdbc.Jdbc;
import dev.outboxer.cdi.internal.tx.Transactions;
import dev.outboxer.spi.SupportedDatabase;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * Which database the application's EntityManager talks to: from {@code outbox.database}, or from
 * the JDBC connection's metadata, read once at start-up and recognised by the SPI's one rule
 * ({@link SupportedDatabase#of(String, String)}, which the inbox uses too).
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
    String[] product;
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
    SupportedDatabase found;
    try {
      found = SupportedDatabase.of(product[0], product[1]);
    } catch (IllegalArgumentException unsupported) {
      throw new OutboxException(unsupported.getMessage(), unsupported);
    }
    LOG.info("Outboxer detected the database: " + found.configValue() + " (" + productVersion + ")");
    return Dialect.of(found);
  }

  /** The product name and version, as the driver reports them. */
  private String[] readProduct() throws Exception {
    String[] product = jdbc.call(connection -> new String[] {connection.getMetaData().getDatabaseProductName(),
        connection.getMetaData().getDatabaseProductVersion()});
    productVersion = product[0] + " " + product[1];
    return product;
  }
}
