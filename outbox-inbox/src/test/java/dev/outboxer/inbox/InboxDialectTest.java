package dev.outboxer.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.spi.SupportedDatabase;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The inbox recognises its database by the SPI's rule, the one the core uses. */
class InboxDialectTest {

  @Test
  void has_a_dialect_for_every_supported_database_and_no_other() {
    assertThat(Arrays.stream(InboxDialect.values()).map(Enum::name))
        .containsExactlyInAnyOrderElementsOf(Arrays.stream(SupportedDatabase.values()).map(Enum::name).toList());
  }

  @Test
  void recognises_a_connection_by_the_spi_rule() throws Exception {
    assertThat(InboxDialect.of(connection("MariaDB", "11.4.3-MariaDB"))).isEqualTo(InboxDialect.MARIADB);
    assertThat(InboxDialect.of(connection("MySQL", "5.5.5-10.11.8-MariaDB"))).isEqualTo(InboxDialect.MARIADB);
    assertThat(InboxDialect.of(connection("PostgreSQL", "16.4"))).isEqualTo(InboxDialect.POSTGRESQL);
  }

  @Test
  void refuses_mysql_as_the_core_does() {
    String spiSays = "";
    try {
      SupportedDatabase.of("MySQL", "8.0.39");
    } catch (IllegalArgumentException e) {
      spiSays = e.getMessage();
    }
    assertThat(spiSays).isNotEmpty();
    assertThatThrownBy(() -> InboxDialect.of(connection("MySQL", "8.0.39"))).isInstanceOf(InboxException.class)
        .hasMessageEndingWith(spiSays);
  }

  private static Connection connection(String productName, String productVersion) {
    DatabaseMetaData metadata = (DatabaseMetaData) Proxy.newProxyInstance(InboxDialectTest.class.getClassLoader(),
        new Class<?>[] {DatabaseMetaData.class}, (proxy, method, args) -> switch (method.getName()) {
          case "getDatabaseProductName" -> productName;
          case "getDatabaseProductVersion" -> productVersion;
          default -> throw new UnsupportedOperationException(method.getName());
        });
    return (Connection) Proxy.newProxyInstance(InboxDialectTest.class.getClassLoader(), new Class<?>[] {Connection.class},
        (proxy, method, args) -> {
          if (method.getName().equals("getMetaData")) {
            return metadata;
          }
          throw new UnsupportedOperationException(method.getName());
        });
  }
}
