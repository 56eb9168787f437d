package dev.outboxer.cdi.internal.cdi;

import dev.outboxer.Outboxed;
import dev.outboxer.cdi.internal.config.OutboxConfiguration;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import jakarta.enterprise.inject.spi.WithAnnotations;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Validates Outboxer's configuration at deployment, so that a bad value fails the deployment with a
 * message naming the key and the value instead of failing later, or not at all: collects the
 * {@code @Outboxed} types as the container discovers them, then runs the {@link DeploymentCheck}
 * and adds each of its problems as a deployment problem (all of them at once).
 */
public class OutboxExtension implements Extension {

  private final Set<Class<?>> outboxedTypes = ConcurrentHashMap.newKeySet();
  private volatile OutboxConfiguration configuration;

  <T> void collectOutboxedTypes(@Observes @WithAnnotations(Outboxed.class) ProcessAnnotatedType<T> type) {
    if (type.getAnnotatedType().isAnnotationPresent(Outboxed.class)) {
      outboxedTypes.add(type.getAnnotatedType().getJavaClass());
    }
  }

  void validate(@Observes AfterDeploymentValidation validation, BeanManager beans) {
    DeploymentCheck check = DeploymentCheck.run(beans, outboxedTypes, ConfigProvider.getConfig(classLoader()));
    check.problems().forEach(validation::addDeploymentProblem);
    configuration = check.configuration().orElse(null);
  }

  /** The configuration read at deployment; there is none if the deployment failed. */
  public OutboxConfiguration configuration() {
    OutboxConfiguration read = configuration;
    if (read == null) {
      throw new IllegalStateException("Outboxer's configuration was not validated at deployment. Indicates a bug.");
    }
    return read;
  }

  private static ClassLoader classLoader() {
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    return context != null ? context : OutboxExtension.class.getClassLoader();
  }
}
