package dev.outboxer.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.spi.SettingsCatalog;
import dev.outboxer.spi.SettingsDeclaration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** outbox-admin's keys as the configuration reference lists them, and read as the extension reads them. */
class AdminSettingsCatalogTest {

  @Test
  void the_catalog_lists_the_role_with_its_default_and_is_found_by_service_loader() {
    assertThat(ServiceLoader.load(SettingsCatalog.class).stream().map(ServiceLoader.Provider::type))
        .contains(AdminSettingsCatalog.class);
    SettingsDeclaration declaration = new AdminSettingsCatalog().declarations().get(0);

    assertThat(declaration.keyPatterns()).containsExactly("outbox.admin.role");
    assertThat(AdminSettingsCatalog.ROLE.defaultText()).contains("outbox-admin");
    assertThat(AdminSettingsCatalog.ROLE.meaning()).isNotBlank();
  }

  @Test
  void every_problem_is_reported_at_once_and_a_refused_role_reads_as_the_default() {
    Map<String, String> config = Map.of("outbox.admin.role", " ", "outbox.admin.rol", "ops");

    assertThat(AdminExtension.problems(key -> Optional.ofNullable(config.get(key)), config.keySet()))
        .extracting(Throwable::getMessage).containsExactly(
            "outbox.admin.rol is not a setting of the admin API. Did you mean outbox.admin.role? Known keys under"
                + " outbox.admin.: [role]",
            "outbox.admin.role=  is blank: remove the key for the default (outbox-admin) or give it a value"
                + " (admin API)");
    assertThat(AdminSettings.reader(key -> Optional.ofNullable(config.get(key)), List.copyOf(config.keySet()))
        .get(AdminSettingsCatalog.ROLE)).isEqualTo("outbox-admin");
  }
}
