package dev.outboxer.cdi.internal.cdi;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.cdi.internal.LogCapture;
import dev.outboxer.testing.RecordingRelay;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import jakarta.enterprise.inject.spi.DeploymentException;
import java.util.Map;
import org.eclipse.microprofile.config.spi.ConfigProviderResolver;
import org.jboss.weld.environment.se.Weld;
import org.junit.jupiter.api.Test;

/**
 * An application that configures an outbox but gives Outboxer neither a data source nor an
 * EntityManager fails its deployment with a message that says how to give one. The test kit's
 * container always provides one, so this test starts Weld on its own, as such an application would.
 */
class MissingPersistenceDeploymentTest {

  @Test
  void an_outbox_without_an_entity_manager_or_data_source_fails_the_deployment_naming_the_fix() {
    SmallRyeConfig config = new SmallRyeConfigBuilder()
        .withSources(new PropertiesConfigSource(Map.of("outbox.orders.relay", "recording",
            "mp.metrics.prometheus.enabled", "false"), "missing-persistence-test", 500))
        .build();
    ConfigProviderResolver resolver = ConfigProviderResolver.instance();
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    try {
      resolver.releaseConfig(resolver.getConfig(loader));
    } catch (RuntimeException none) {
      // nothing registered
    }
    resolver.registerConfig(config, loader);
    try (LogCapture quiet = LogCapture.of("org.jboss.weld")) {
      assertThatThrownBy(() -> new Weld("missing-persistence-test").skipShutdownHook()
              .addBeanClass(RecordingRelay.class)
              .initialize().close())
          .isInstanceOf(DeploymentException.class)
          .hasStackTraceContaining(DeploymentCheck.MISSING_ENTITY_MANAGER)
          .hasStackTraceContaining("@Produces @OutboxPersistence")
          .hasStackTraceContaining("outbox.datasource=jdbc/orders");
    } finally {
      resolver.releaseConfig(config);
    }
  }
}
