package dev.outboxer.cdi.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.spi.SupportedDatabase;
import org.junit.jupiter.api.Test;

/** The core's dialects are the SPI's supported databases, recognised by its rule. */
class DialectTest {

  @Test
  void every_supported_database_has_its_dialect_with_the_same_config_value() {
    for (SupportedDatabase database : SupportedDatabase.values()) {
      assertThat(Dialect.of(database).configValue()).isEqualTo(database.configValue());
      assertThat(Dialect.fromConfig(database.configValue())).contains(Dialect.of(database));
    }
    assertThat(Dialect.values()).hasSameSizeAs(SupportedDatabase.values());
    assertThat(Dialect.fromConfig("mysql")).isEmpty();
  }
}
