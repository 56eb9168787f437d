package dev.outboxer.health;

import dev.outboxer.OutboxConfigurationException;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.Extension;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Checks outbox-health's configuration keys when the application deploys, so that a bad value fails
 * the deployment (naming the key, the value and the fix) instead of a probe at run time. Public
 * only because {@link java.util.ServiceLoader} needs it; not API.
 */
public final class OutboxHealthExtension implements Extension {

  void validate(@Observes AfterDeploymentValidation validation) {
    HealthSettings.Result result = HealthSettings.read(ConfigProvider.getConfig(classLoader()));
    for (OutboxConfigurationException problem : result.problems()) {
      validation.addDeploymentProblem(problem);
    }
  }

  static ClassLoader classLoader() {
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    return context != null ? context : OutboxHealthExtension.class.getClassLoader();
  }
}
