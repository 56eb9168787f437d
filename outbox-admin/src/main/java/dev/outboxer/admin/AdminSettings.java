package dev.outboxer.admin;

import dev.outboxer.spi.SettingsReader;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Optional;
import java.util.function.Function;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The admin API's settings ({@link AdminSettingsCatalog}), read once from MicroProfile Config;
 * checked at deployment by {@link AdminExtension}, which reads them the same way.
 */
@ApplicationScoped
public class AdminSettings {

  private String role;

  @PostConstruct
  void read() {
    Config config = ConfigProvider.getConfig(AdminExtension.classLoader());
    role = reader(key -> config.getOptionalValue(key, String.class), config.getPropertyNames())
        .get(AdminSettingsCatalog.ROLE);
  }

  /**
   * @param lookup the value of a key, empty when not set
   * @param propertyNames every name the configuration reports
   * @return a reader of the {@code outbox.admin.*} keys, unknown keys already recorded as problems; a refused
   *     value reads as the default, and is a deployment problem reported by {@link AdminExtension}
   */
  static SettingsReader reader(Function<String, Optional<String>> lookup, Iterable<String> propertyNames) {
    return SettingsReader.fromConfig(AdminSettingsCatalog.DECLARATION, null, lookup, propertyNames);
  }

  /** @return the role every caller needs ({@code outbox.admin.role}, default {@code outbox-admin}) */
  public String role() {
    return role;
  }
}
