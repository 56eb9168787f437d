package dev.outboxer.admin;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.spi.SettingsReader;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.Extension;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Checks outbox-admin's keys when the application deploys: a misspelt key or an empty role fails
 * the deployment, naming the key, instead of leaving the API guarded by a role nobody meant. Public
 * only because {@link java.util.ServiceLoader} needs it; not API.
 */
public final class AdminExtension implements Extension {

  void validate(@Observes AfterDeploymentValidation validation) {
    Config config = ConfigProvider.getConfig(classLoader());
    problems(key -> config.getOptionalValue(key, String.class), config.getPropertyNames())
        .forEach(validation::addDeploymentProblem);
  }

  /** Every problem of the {@code outbox.admin.*} keys set: unknown keys and a refused role. */
  static List<OutboxConfigurationException> problems(Function<String, Optional<String>> lookup,
      Iterable<String> propertyNames) {
    SettingsReader reader = AdminSettings.reader(lookup, propertyNames);
    reader.get(AdminSettingsCatalog.ROLE);
    return reader.problems();
  }

  static ClassLoader classLoader() {
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    return context != null ? context : AdminExtension.class.getClassLoader();
  }
}
