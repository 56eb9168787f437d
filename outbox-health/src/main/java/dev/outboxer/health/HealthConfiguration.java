package dev.outboxer.health;

import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The settings the checks work with, read once. They were checked at deployment by {@link
 * OutboxHealthExtension}; a deployment with problems does not get this far.
 */
@ApplicationScoped
class HealthConfiguration {

  private HealthSettings settings;

  @PostConstruct
  void read() {
    HealthSettings.Result result = HealthSettings.read(ConfigProvider.getConfig(OutboxHealthExtension.classLoader()));
    if (result.settings() == null) {
      throw new IllegalStateException("outbox-health's configuration has problems that deployment should have"
          + " reported (indicates a bug): " + result.problems());
    }
    settings = result.settings();
  }

  HealthSettings settings() {
    return settings;
  }
}
