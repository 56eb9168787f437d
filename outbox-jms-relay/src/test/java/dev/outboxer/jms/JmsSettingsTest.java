package dev.outboxer.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.Ordering;
import dev.outboxer.spi.RelayContext;
import jakarta.jms.DeliveryMode;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JmsSettingsTest {

  @Test
  void onlyTheDestinationIsRequiredAndTheRestHasDocumentedDefaults() {
    JmsSettings settings = JmsSettings.from(context(Map.of("destination", "jms/orders")));

    assertThat(settings).isEqualTo(
        new JmsSettings(Optional.empty(), "jms/orders", DeliveryMode.PERSISTENT, 4, 0));
  }

  @ParameterizedTest
  @CsvSource({
    "0, 0",
    "500ms, 500",
    "30s, 30000",
    "10m, 600000",
    "2h, 7200000",
    "1d, 86400000",
    "PT1M, 60000",
    "' 45 S ', 45000",
  })
  void timeToLiveAcceptsUnitsAndIso8601(String value, long millis) {
    assertThat(JmsSettings.from(context(Map.of("destination", "q", "time-to-live", value)))
            .timeToLiveMillis())
        .isEqualTo(millis);
  }

  @Test
  void readsEverySetting() {
    JmsSettings settings = JmsSettings.from(context(Map.of(
        "connection-factory", "jms/cf",
        "destination", "jms/orders",
        "delivery-mode", "Non-Persistent",
        "priority", "9")));

    assertThat(settings).isEqualTo(
        new JmsSettings(Optional.of("jms/cf"), "jms/orders", DeliveryMode.NON_PERSISTENT, 9, 0));
  }

  @ParameterizedTest
  @CsvSource({
    "delivery-mode, sometimes, persistent or non-persistent",
    "priority, 10, 0 (lowest) to 9 (highest)",
    "priority, high, 0 (lowest) to 9 (highest)",
    "time-to-live, 5, with a unit",
    "time-to-live, -1s, with a unit",
    "time-to-live, PT-1S, with a unit",
    "time-to-live, 99999999999999999999d, with a unit",
    "destinaton, jms/orders, not a setting of the jms relay",
  })
  void rejectsAnInvalidSettingNamingTheKeyTheValueAndTheRule(String key, String value, String rule) {
    Map<String, String> properties = new HashMap<>(Map.of("destination", "jms/orders"));
    properties.put(key, value);

    assertThatThrownBy(() -> JmsSettings.from(context(properties)))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("outbox.orders.jms." + key)
        .hasMessageContaining(key.equals("destinaton") ? "Known keys" : "=" + value)
        .hasMessageContaining(rule)
        .extracting(e -> ((OutboxConfigurationException) e).key())
        .isEqualTo("outbox.orders.jms." + key);
  }

  private static RelayContext context(Map<String, String> properties) {
    return new RelayContext("orders", Ordering.GROUP, 1, Duration.ofSeconds(30), properties);
  }
}
