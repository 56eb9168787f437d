package dev.outboxer.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.Ordering;
import dev.outboxer.spi.MessageConstraints;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.spi.SettingsCatalog;
import jakarta.jms.DeliveryMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
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
    "delivery-mode, sometimes, is not a delivery mode: use persistent or non-persistent",
    "priority, 10, is out of range: use a number from 0 to 9",
    "priority, high, is not a number: use a whole number from 0 to 9",
    "time-to-live, 5, is not a duration: expected a number with a unit",
    "time-to-live, -1s, is not a duration: expected a number with a unit",
    "time-to-live, PT-1S, is negative: use 0 or a positive duration",
    "time-to-live, 99999999999999999999d, is not a duration",
    "time-to-live, 365001d, is too long: the limit is 365000d",
    "destinaton, jms/orders, not a setting of the jms relay of outbox 'orders'",
  })
  void rejectsAnInvalidSettingNamingTheKeyTheValueAndTheRule(String key, String value, String rule) {
    Map<String, String> properties = new HashMap<>(Map.of("destination", "jms/orders"));
    properties.put(key, value);

    assertThatThrownBy(() -> JmsSettings.from(context(properties)))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("outbox.orders.jms." + key)
        .hasMessageContaining(key.equals("destinaton") ? "Known keys" : "=" + value + " " + rule)
        .hasMessageContaining(rule)
        .extracting(e -> ((OutboxConfigurationException) e).key())
        .isEqualTo("outbox.orders.jms." + key);
  }

  @Test
  void aBlankValueIsRefusedNamingTheDefault() {
    assertThatThrownBy(() -> JmsSettings.from(context(Map.of("destination", "q", "priority", " "))))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessage("outbox.orders.jms.priority=  is blank: remove the key for the default (4) or give it a value"
            + " (jms relay of outbox 'orders')");
  }

  @Test
  void reportsEveryProblemAtOnceNamingTheNearestKnownKey() {
    Map<String, String> properties = Map.of(
        "destinaton", "jms/orders", "priorty", "3", "delivery-mode", "sometimes",
        "time-to-live", "5", "colour", "blue");

    assertThatThrownBy(() -> new JmsRelayProvider().validate(context(properties)))
        .isInstanceOfSatisfying(OutboxConfigurationException.class, first -> {
          List<String> messages = new ArrayList<>();
          messages.add(first.getMessage());
          for (Throwable more : first.getSuppressed()) {
            messages.add(more.getMessage());
          }
          assertThat(messages).hasSize(6)
              .anySatisfy(message -> assertThat(message)
                  .contains("outbox.orders.jms.destinaton is not a setting")
                  .contains("Did you mean outbox.orders.jms.destination?"))
              .anySatisfy(message -> assertThat(message)
                  .contains("outbox.orders.jms.priorty is not a setting")
                  .contains("Did you mean outbox.orders.jms.priority?"))
              .anySatisfy(message -> assertThat(message)
                  .contains("outbox.orders.jms.colour is not a setting")
                  .doesNotContain("Did you mean"))
              .anySatisfy(message -> assertThat(message)
                  .contains("outbox.orders.jms.destination is not set"))
              .anySatisfy(message -> assertThat(message)
                  .contains("outbox.orders.jms.delivery-mode=sometimes"))
              .anySatisfy(message -> assertThat(message)
                  .contains("outbox.orders.jms.time-to-live=5"));
        });
  }

  @Test
  void theCatalogFoundByTheServiceLoaderListsTheDeclarationTheRelayReads() {
    assertThat(ServiceLoader.load(SettingsCatalog.class).stream().map(ServiceLoader.Provider::type))
        .contains(JmsSettingsCatalog.class);
    assertThat(new JmsSettingsCatalog().declarations()).containsExactly(JmsSettings.DECLARATION);
    assertThat(JmsSettings.DECLARATION.title()).isEqualTo("jms relay");
    assertThat(JmsSettings.DECLARATION.appliesWhen()).contains("outbox.<name>.relay=jms");
    assertThat(JmsSettings.DECLARATION.settings()).allSatisfy(setting -> assertThat(setting.meaning()).isNotEmpty());
    assertThat(JmsSettings.TIME_TO_LIVE_SETTING.defaultText()).contains("0");
  }

  @Test
  void theProviderConstrainsOnlyHeaderNamesThatWouldShareOneProperty() {
    MessageConstraints constraints = new JmsRelayProvider().constraints(context(Map.of("destination", "q")));
    assertThat(constraints).isInstanceOf(JmsHeaderConstraints.class);
    // no limit on size, group key or content type: JMS has none of its own
    assertThat(constraints.checkMessage("any group", "application/json", 50_000_000, Map.of("a.b", "1", "c", "2")))
        .isNull();
    assertThat(constraints.checkMessage(null, "text/plain", 0, Map.of("a.b", "1", "a_DOT_b", "2")))
        .contains("a.b").contains("a_DOT_b");
  }

  private static RelayContext context(Map<String, String> properties) {
    return new RelayContext("orders", Ordering.GROUP, 1, Duration.ofSeconds(30), properties);
  }
}
