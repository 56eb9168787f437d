package dev.outboxer.sample;

import dev.outboxer.spi.SqlScripts;
import dev.outboxer.spi.SupportedDatabase;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Creates the tables when they are missing, at start-up: Outboxer's from the DDL script it ships for
 * the database ({@code META-INF/outboxer/ddl/<database>.sql} in outbox-cdi.jar), and the sample's
 * own from {@code META-INF/sql/orders.sql}. The demo's in-memory H2 database starts empty every
 * time; an existing schema (a PostgreSQL database) is left alone.
 *
 * <p>A {@code @Startup} singleton because Open Liberty starts those while it starts the EJB module,
 * before CDI's {@code @Initialized(ApplicationScoped.class)} event, at which Outboxer reads its
 * tables (the persisted rules of each outbox) and starts its workers. In production, create the
 * schema with your migration tool from the same scripts and drop this class.
 *
 * <p>Why not JPA schema generation ({@code jakarta.persistence.schema-generation.create-script-source})?
 * EclipseLink, Open Liberty's default provider, runs such a script line by line and passes the
 * trailing semicolon on, so a multi-line {@code CREATE TABLE} (as in Outboxer's scripts) fails
 * line by line.
 */
@Singleton
@Startup
@TransactionManagement(TransactionManagementType.BEAN)
public class SchemaSetup {

  private static final Logger LOG = Logger.getLogger(SchemaSetup.class.getName());

  @Resource(lookup = "jdbc/orders")
  DataSource dataSource;

  @PostConstruct
  void createMissingTables() {
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(true);
      String database = SupportedDatabase.of(connection.getMetaData()).configValue();
      if (!tableExists(connection, "outbox_message")) {
        run(connection, "META-INF/outboxer/ddl/" + database + ".sql");
      }
      if (!tableExists(connection, "purchase_order")) {
        run(connection, "META-INF/sql/orders.sql");
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Could not create the sample's tables in jdbc/orders: " + e.getMessage(), e);
    }
  }

  private static boolean tableExists(Connection connection, String table) throws SQLException {
    DatabaseMetaData metadata = connection.getMetaData();
    // Unquoted names are stored upper case by H2, lower case by PostgreSQL.
    for (String name : new String[] {table, table.toUpperCase(Locale.ROOT)}) {
      try (ResultSet tables = metadata.getTables(null, connection.getSchema(), name, new String[] {"TABLE"})) {
        if (tables.next()) {
          return true;
        }
      }
    }
    return false;
  }

  private static void run(Connection connection, String script) throws SQLException {
    List<String> statements = SqlScripts.statements(read(script));
    try (Statement statement = connection.createStatement()) {
      for (String sql : statements) {
        statement.execute(sql);
      }
    }
    LOG.info("Created the tables of " + script + " (" + statements.size() + " statements)");
  }

  private static String read(String resource) {
    try (InputStream in = SchemaSetup.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is not on the class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("Could not read " + resource, e);
    }
  }
}
