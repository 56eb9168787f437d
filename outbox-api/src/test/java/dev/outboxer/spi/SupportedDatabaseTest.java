package dev.outboxer.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SupportedDatabaseTest {

  @Test
  void recognises_the_product_names_the_drivers_report() {
    assertThat(SupportedDatabase.of("PostgreSQL", "16.4 (Debian 16.4-1.pgdg120+1)"))
        .isEqualTo(SupportedDatabase.POSTGRESQL);
    assertThat(SupportedDatabase.of("MariaDB", "11.4.3-MariaDB-ubu2404")).isEqualTo(SupportedDatabase.MARIADB);
    assertThat(SupportedDatabase.of("H2", "2.3.232 (2024-08-11)")).isEqualTo(SupportedDatabase.H2);
    assertThat(SupportedDatabase.of("SQLite", "3.46.1")).isEqualTo(SupportedDatabase.SQLITE);
  }

  @Test
  void a_mariadb_server_through_mysqls_driver_is_mariadb_by_its_version() {
    assertThat(SupportedDatabase.of("MySQL", "5.5.5-10.11.8-MariaDB-0ubuntu0.24.04.1"))
        .isEqualTo(SupportedDatabase.MARIADB);
  }

  @Test
  void mysql_is_refused_saying_why_and_what_is_supported() {
    assertThatThrownBy(() -> SupportedDatabase.of("MySQL", "8.0.39"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'MySQL 8.0.39' is MySQL, which Outboxer does not support")
        .hasMessageContaining("no sequences")
        .hasMessageContaining(SupportedDatabase.SUPPORTED);
  }

  @Test
  void an_unknown_database_is_refused_naming_it_and_what_is_supported() {
    assertThatThrownBy(() -> SupportedDatabase.of("Apache Derby", "10.16.1.1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("The database 'Apache Derby 10.16.1.1' is not supported: " + SupportedDatabase.SUPPORTED);
    assertThatThrownBy(() -> SupportedDatabase.of(null, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("The database '' is not supported");
  }

  @Test
  void config_values_are_the_lower_case_names_and_nothing_else() {
    for (SupportedDatabase database : SupportedDatabase.values()) {
      assertThat(SupportedDatabase.fromConfigValue(" " + database.configValue().toUpperCase() + " "))
          .contains(database);
    }
    assertThat(SupportedDatabase.fromConfigValue("mysql")).isEmpty();
    assertThat(SupportedDatabase.fromConfigValue("postgres")).isEmpty();
  }
}
