package dev.outboxer.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.Ordering;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.spi.SettingsCatalog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** The {@code outbox.<name>.local.*} keys, read with the SPI's settings reader. */
class LocalSettingsTest {

  private static RelayContext context(Map<String, String> properties) {
    return new RelayContext("orders", Ordering.GROUP, 1, Duration.ofSeconds(30), properties);
  }

  @Test
  void the_handler_list_is_read_in_order_each_name_once() {
    List<OutboxConfigurationException> problems = new ArrayList<>();
    LocalSettings settings = LocalSettings.read(context(Map.of("handler", " billing, shipping,billing ")), problems);
    assertThat(problems).isEmpty();
    assertThat(settings.handlerNames()).containsExactly("billing", "shipping");
    assertThat(LocalSettings.read(context(Map.of()), problems).handlerNames()).isEmpty();
    assertThat(problems).isEmpty();
  }

  @Test
  void an_empty_element_and_an_unknown_key_are_reported_together_naming_key_value_and_rule() {
    List<OutboxConfigurationException> problems = new ArrayList<>();
    LocalSettings.read(context(Map.of("handler", "billing,,shipping", "handlr", "x")), problems);
    assertThat(problems).extracting(Throwable::getMessage).containsExactly(
        "outbox.orders.local.handlr is not a setting of the local relay of outbox 'orders'. Did you mean"
            + " outbox.orders.local.handler? Known keys under outbox.orders.local.: [handler]",
        "outbox.orders.local.handler=billing,,shipping has an empty element: separate the elements by single commas"
            + " (local relay of outbox 'orders')");
    assertThat(problems).extracting(OutboxConfigurationException::key)
        .containsExactly("outbox.orders.local.handlr", "outbox.orders.local.handler");
  }

  @Test
  void the_catalog_found_by_the_service_loader_lists_the_declaration_the_relay_reads() {
    assertThat(ServiceLoader.load(SettingsCatalog.class).stream().map(ServiceLoader.Provider::type))
        .contains(LocalSettingsCatalog.class);
    assertThat(new LocalSettingsCatalog().declarations()).containsExactly(LocalSettings.DECLARATION);
    assertThat(LocalSettings.DECLARATION.title()).isEqualTo("local relay");
    assertThat(LocalSettings.DECLARATION.appliesWhen()).contains("outbox.<name>.relay=local");
  }
}
