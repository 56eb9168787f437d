package dev.outboxer.se;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.agroal.api.AgroalDataSource;
import jakarta.transaction.UserTransaction;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The XA pool joins Narayana's transactions: its rows commit and roll back with them (H2's XA data source). */
class XaDataSourcesTest {

  private static final String URL = "jdbc:h2:mem:xa-pool;DB_CLOSE_DELAY=-1";

  @BeforeAll
  static void narayanaInTarget() {
    NarayanaStore.directory(Path.of("target", "narayana-object-store"));
    NarayanaStore.nodeIdentifier("outbox-java-se-test");
  }

  @Test
  void a_connection_taken_in_a_transaction_commits_and_rolls_back_with_it() throws Exception {
    UserTransaction transaction = com.arjuna.ats.jta.UserTransaction.userTransaction();
    try (AgroalDataSource pool = XaDataSources.pool(URL, "sa", "", XaDataSources.xaDataSourceClassFor(URL), 2)) {
      try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
        statement.execute("CREATE TABLE IF NOT EXISTS purchase (id INT PRIMARY KEY)");
      }

      transaction.begin();
      insert(pool, 1);
      transaction.commit();
      transaction.begin();
      insert(pool, 2);
      transaction.rollback();

      try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement();
          ResultSet rows = statement.executeQuery("SELECT id FROM purchase ORDER BY id")) {
        assertThat(rows.next()).isTrue();
        assertThat(rows.getInt(1)).isEqualTo(1);
        assertThat(rows.next()).as("the rolled-back row").isFalse();
      }
    }
  }

  @Test
  void the_xa_data_source_follows_from_the_url() {
    assertThat(XaDataSources.xaDataSourceClassFor("jdbc:postgresql://localhost/orders"))
        .isEqualTo("dev.outboxer.postgresql.RecoverablePGXADataSource");
    assertThat(XaDataSources.xaDataSourceClassFor("jdbc:mysql://localhost/orders"))
        .isEqualTo("org.mariadb.jdbc.MariaDbDataSource");
    assertThatThrownBy(() -> XaDataSources.xaDataSourceClassFor("jdbc:oracle:thin:@db:1521/orders"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jdbc:oracle:thin:@db:1521/orders")
        .hasMessageContaining("xaDataSourceClass(...)");
  }

  @Test
  void a_node_identifier_longer_than_narayana_allows_is_refused_naming_it() {
    assertThatThrownBy(() -> NarayanaStore.nodeIdentifier("orders-publisher-on-host-eu-west-1a"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'orders-publisher-on-host-eu-west-1a' has 35");
  }

  private static void insert(AgroalDataSource pool, int id) throws Exception {
    try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
      statement.execute("INSERT INTO purchase (id) VALUES (" + id + ")");
    }
  }
}
