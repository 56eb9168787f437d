package dev.outboxer.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.spi.SettingsCatalog;
import dev.outboxer.spi.SettingsDeclaration;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** The inbox's keys are declared once, and listed for the configuration reference. */
class InboxSettingsTest {

  @Test
  void theInboxCatalogIsFoundAndDeclaresEveryKeyWithItsDefault() {
    assertThat(ServiceLoader.load(SettingsCatalog.class).stream().map(ServiceLoader.Provider::type))
        .contains(InboxSettings.class);
    assertThat(new InboxSettings().declarations()).extracting(SettingsDeclaration::prefix)
        .containsExactly("outbox.inbox.", "outbox.<name>.inbox.");
    assertThat(new InboxSettings().declarations()).allSatisfy(declaration -> {
      assertThat(declaration.title()).isEqualTo("inbox");
      assertThat(declaration.module()).isEqualTo("outbox-inbox");
    });
    assertThat(InboxSettings.GLOBAL.keyPatterns()).containsExactly("outbox.inbox.datasource", "outbox.inbox.schema",
        "outbox.inbox.retention", "outbox.inbox.retention-interval", "outbox.inbox.retention-chunk-size");
    assertThat(InboxSettings.RETENTION.defaultValue()).as("retention: off").isEmpty();
    assertThat(InboxSettings.RETENTION_INTERVAL.defaultValue()).contains(java.time.Duration.ofHours(1));
    assertThat(InboxSettings.PER_OUTBOX.keyPatterns()).containsExactly("outbox.<name>.inbox.deduplicate");
    assertThat(InboxSettings.SCHEMA.defaultValue()).contains("validate");
    assertThat(InboxSettings.DEDUPLICATE.defaultValue()).contains("group");
    assertThat(InboxSettings.DATASOURCE.defaultText()).hasValueSatisfying(text -> assertThat(text)
        .contains("@OutboxPersistence", "outbox.datasource"));
  }
}
