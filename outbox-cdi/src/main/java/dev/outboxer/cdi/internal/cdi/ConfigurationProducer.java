package dev.outboxer.cdi.internal.cdi;

import dev.outboxer.cdi.internal.config.OutboxConfiguration;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;

/** Makes the configuration validated at deployment injectable. */
@ApplicationScoped
public class ConfigurationProducer {

  @Inject OutboxExtension extension;

  @Produces
  OutboxConfiguration configuration() {
    return extension.configuration();
  }
}
