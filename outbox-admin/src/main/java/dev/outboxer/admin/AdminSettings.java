package dev.outboxer.admin;

import dev.outboxer.spi.SettingsReader;
import jakarta.annotation.PostConstruct;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.interceptor.Interceptor;
import java.util.Optional;
import java.util.function.Function;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The admin API's settings ({@link AdminSettingsCatalog}), read once from MicroProfile Config. In a
 * CDI container that runs portable extensions they were checked at deployment by {@link
 * AdminExtension}, which reads them the same way, and a deployment with problems does not get this
 * far. In one that runs none (Quarkus' ArC) they are read, and so checked, when the application
 * starts ({@link Startup}, before Outboxer's own start): a misspelt key or a refused role fails the
 * start with an {@link dev.outboxer.OutboxConfigurationException} naming the key, the others
 * suppressed in it.
 */
@ApplicationScoped
public class AdminSettings {

  /** Before Outboxer's start in Quarkus ({@code PLATFORM_BEFORE}), as outbox-health's check. */
  static final int BEFORE_OUTBOXER_START = Interceptor.Priority.PLATFORM_BEFORE - 1;

  private String role;

  @PostConstruct
  void read() {
    Config config = ConfigProvider.getConfig(AdminExtension.classLoader());
    SettingsReader reader = reader(key -> config.getOptionalValue(key, String.class), config.getPropertyNames());
    role = reader.get(AdminSettingsCatalog.ROLE);
    reader.throwIfAny();
  }

  /** Reads the settings at the start of the application, where no deployment check read them (see above). */
  void readAtStart(@Observes @Priority(BEFORE_OUTBOXER_START) Startup startup) {
    role();
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
