package dev.outboxer.se;

import com.arjuna.ats.jta.common.jtaPropertyManager;
import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.agroal.api.security.NamePrincipal;
import io.agroal.api.security.SimplePassword;
import io.agroal.narayana.NarayanaTransactionIntegration;
import jakarta.transaction.TransactionManager;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * JTA data sources for Java SE: an Agroal pool over the JDBC driver's {@code javax.sql.XADataSource},
 * enlisted in Narayana's transactions. A connection taken inside a JTA transaction joins it, so
 * that Outboxer's rows and the application's commit together (two resources: two-phase commit).
 *
 * <p>A connection taken outside a JTA transaction is not enlisted: Outboxer's workers take theirs
 * that way for a relay that does not use the worker's transaction (Kafka, SQS, RabbitMQ) and commit
 * it themselves, without XA.
 *
 * <p>Not guaranteed: recovery of transactions left prepared by a crash. Outboxer's Kafka, SQS and
 * RabbitMQ relays do not enlist in the database transaction; with one XA resource Narayana commits
 * in one phase and nothing stays prepared. An application that enlists a second XA resource (the
 * JMS relay over XA) runs Narayana's recovery manager itself (see the JMS guide).
 */
public final class XaDataSources {

  private XaDataSources() {
  }

  /**
   * A pool of at most {@code maxSize} connections through the XA data source class {@code
   * xaDataSourceClass} (which has {@code setUrl}, {@code setUser} and {@code setPassword}), enlisted
   * in Narayana's transactions. A connection is waited for up to 30 s. Close it after use.
   */
  public static AgroalDataSource pool(String url, String user, String password, String xaDataSourceClass,
      int maxSize) throws SQLException {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(xaDataSourceClass, "xaDataSourceClass");
    if (maxSize < 1) {
      throw new IllegalArgumentException("The pool size must be at least 1, not " + maxSize);
    }
    TransactionManager transactionManager = com.arjuna.ats.jta.TransactionManager.transactionManager();
    TransactionSynchronizationRegistry registry =
        jtaPropertyManager.getJTAEnvironmentBean().getTransactionSynchronizationRegistry();
    AgroalDataSourceConfigurationSupplier configuration = new AgroalDataSourceConfigurationSupplier()
        .connectionPoolConfiguration(pool -> pool
            .maxSize(maxSize)
            .acquisitionTimeout(Duration.ofSeconds(30))
            .transactionIntegration(new NarayanaTransactionIntegration(transactionManager, registry))
            .connectionFactoryConfiguration(factory -> factory
                .jdbcUrl(url)
                .connectionProviderClassName(xaDataSourceClass)
                .principal(new NamePrincipal(user == null ? "" : user))
                .credential(new SimplePassword(password == null ? "" : password))));
    return AgroalDataSource.from(configuration);
  }

  /**
   * The XA data source class of the databases Outboxer ships a schema for, from the JDBC URL: H2
   * ({@code jdbc:h2:}), PostgreSQL ({@code jdbc:postgresql:}; Outboxer's {@code
   * RecoverablePGXADataSource}, pgjdbc's with a terminated session's commit retryable at recovery)
   * and MariaDB or MySQL through the MariaDB driver ({@code jdbc:mariadb:}, {@code jdbc:mysql:}).
   *
   * @throws IllegalArgumentException for a URL of another database, naming the ones known
   */
  public static String xaDataSourceClassFor(String url) {
    String lower = Objects.requireNonNull(url, "url").toLowerCase(Locale.ROOT);
    if (lower.startsWith("jdbc:h2:")) {
      return "org.h2.jdbcx.JdbcDataSource";
    }
    if (lower.startsWith("jdbc:postgresql:")) {
      return "dev.outboxer.postgresql.RecoverablePGXADataSource";
    }
    if (lower.startsWith("jdbc:mariadb:") || lower.startsWith("jdbc:mysql:")) {
      return "org.mariadb.jdbc.MariaDbDataSource";
    }
    throw new IllegalArgumentException("No known XA data source for " + url + ": Outboxer knows H2, PostgreSQL and"
        + " MariaDB/MySQL (through the MariaDB driver). For another driver, name its javax.sql.XADataSource class"
        + " (xaDataSourceClass(...)).");
  }
}
