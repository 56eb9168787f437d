package dev.outboxer.health;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.Startup;
import jakarta.interceptor.Interceptor;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The settings the checks work with, read once. In a CDI container that runs portable extensions
 * they were checked at deployment by {@link OutboxHealthExtension}, and a deployment with problems
 * does not get this far. In one that runs none (Quarkus' ArC), they are read, and so checked, when
 * the application starts ({@link Startup}, before Outboxer's own start in Quarkus): a bad value fails
 * the start with an {@link dev.outboxer.OutboxConfigurationException} naming every bad key and value.
 */
@ApplicationScoped
class HealthConfiguration {

  /** Before Outboxer's start in Quarkus ({@code PLATFORM_BEFORE}), so that a bad key stops the start before any worker runs. */
  static final int BEFORE_OUTBOXER_START = Interceptor.Priority.PLATFORM_BEFORE - 1;

  private HealthSettings settings;

  @PostConstruct
  void read() {
    HealthSettings.Result result = HealthSettings.read(ConfigProvider.getConfig(OutboxHealthExtension.classLoader()));
    if (result.failure().isPresent()) {
      throw result.failure().get();
    }
    settings = result.settings();
  }

  /** Reads the settings at the start of the application, where no deployment check read them (see above). */
  void readAtStart(@Observes @Priority(BEFORE_OUTBOXER_START) Startup startup) {
    settings();
  }

  HealthSettings settings() {
    return settings;
  }
}
