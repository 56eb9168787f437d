package dev.outboxer.cdi.internal.cdi;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.OutboxPersistence;
import dev.outboxer.Outboxed;
import dev.outboxer.cdi.internal.config.ConfigKeys;
import dev.outboxer.cdi.internal.config.OutboxConfigReader;
import dev.outboxer.cdi.internal.config.OutboxConfiguration;
import dev.outboxer.spi.ConfigKeyNames;
import dev.outboxer.spi.CoreSettings;
import dev.outboxer.spi.PayloadCodec;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayProvider;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Default;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import jakarta.enterprise.inject.spi.WithAnnotations;
import jakarta.inject.Named;
import jakarta.persistence.EntityManager;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Validates Outboxer's configuration at deployment, so that a bad value fails the deployment with a
 * message naming the key and the value instead of failing later, or not at all: every
 * configuration value, every relay name (with the nearest known one), every relay module's own
 * settings (all problems at once), every discovered {@code @Outboxed} type's outbox, the
 * EntityManager and the payload codec.
 */
public class OutboxExtension implements Extension {

  static final String MISSING_ENTITY_MANAGER = "Outboxer needs to know where your business data lives, so that"
      + " messages commit with it: produce the JTA data source with @Produces @OutboxPersistence (for example on a"
      + " field annotated @Resource(lookup = \"jdbc/orders\")), or set outbox.datasource=jdbc/orders, or produce your"
      + " persistence unit's EntityManager with @Produces @OutboxPersistence (on a field annotated"
      + " @PersistenceContext(unitName = \"...\"))";

  private final Set<Class<?>> outboxedTypes = ConcurrentHashMap.newKeySet();
  private volatile OutboxConfiguration configuration;

  <T> void collectOutboxedTypes(@Observes @WithAnnotations(Outboxed.class) ProcessAnnotatedType<T> type) {
    if (type.getAnnotatedType().isAnnotationPresent(Outboxed.class)) {
      outboxedTypes.add(type.getAnnotatedType().getJavaClass());
    }
  }

  void validate(@Observes AfterDeploymentValidation validation, BeanManager beans) {
    Map<String, RelayProvider> providers = new HashMap<>();
    beans.createInstance().select(RelayProvider.class, Any.Literal.INSTANCE).forEach(p -> providers.put(p.name(), p));
    Config config = ConfigProvider.getConfig(classLoader());
    OutboxConfigReader.Result result = new OutboxConfigReader(
        key -> config.getOptionalValue(key, String.class), config.getPropertyNames(), providers.keySet()).read();
    result.problems().forEach(validation::addDeploymentProblem);
    // The relays' own settings are checked even when other keys have problems: all of them in one failed deployment.
    for (OutboxConfigReader.RelayCheck relay : result.relayChecks()) {
      RelayProvider provider = providers.get(relay.relay());
      if (provider != null) {
        try {
          provider.validate(relay.context());
        } catch (OutboxConfigurationException invalid) {
          // Each problem once, on its own: the relay's first problem carries the others suppressed, and the container
          // lists every problem too, so the trace showed each twice, ending in "[CIRCULAR REFERENCE: ...]".
          validation.addDeploymentProblem(alone(invalid));
          for (Throwable more : invalid.getSuppressed()) {
            validation.addDeploymentProblem(more instanceof OutboxConfigurationException problem ? alone(problem) : more);
          }
        } catch (RuntimeException broken) {
          validation.addDeploymentProblem(new OutboxConfigurationException(relay.relayKey(), "The "
              + relay.relay() + " relay could not check the settings of outbox '" + relay.context().outbox() + "': "
              + broken));
        }
      } else if (beans.getBeans(Relay.class, jakarta.enterprise.inject.literal.NamedLiteral.of(relay.relay()))
          .isEmpty()) {
        Set<String> known = knownRelayNames(beans, providers.keySet());
        String key = relay.relayKey();
        validation.addDeploymentProblem(new OutboxConfigurationException(key, key + "=" + relay.relay()
            + " names no relay." + ConfigKeyNames.didYouMean(relay.relay(), known) + " Known relays: " + known
            + " (relay modules on the classpath and @Named CDI beans implementing dev.outboxer.spi.Relay). Add the"
            + " relay module to the application (outbox-jms-relay, outbox-kafka-relay, outbox-sqs-relay,"
            + " outbox-local-relay), or fix the name."));
      }
    }
    if (!result.valid()) {
      return;
    }
    OutboxConfiguration read = result.configuration();

    for (Class<?> type : outboxedTypes) {
      String outbox = type.getAnnotation(Outboxed.class).value();
      if (read.find(outbox).isEmpty()) {
        String key = ConfigKeys.key(outbox, CoreSettings.RELAY);
        validation.addDeploymentProblem(new OutboxConfigurationException(key, type.getName() + " is @Outboxed(\""
            + outbox + "\") but no outbox of that name is configured: set " + key + " (configured: "
            + new TreeSet<>(read.outboxes().keySet()) + ")." + ConfigKeyNames.didYouMean(outbox, read.outboxes().keySet())));
      }
    }
    if (!read.outboxes().isEmpty() && read.dataSource().isEmpty()
        && beans.getBeans(javax.sql.DataSource.class, OutboxPersistenceLiteral.INSTANCE).isEmpty()
        && beans.getBeans(EntityManager.class, OutboxPersistenceLiteral.INSTANCE).isEmpty()
        && beans.getBeans(EntityManager.class, Default.Literal.INSTANCE).size() != 1) {
      validation.addDeploymentProblem(new OutboxConfigurationException(
          "@" + OutboxPersistence.class.getSimpleName(), MISSING_ENTITY_MANAGER));
    }
    if (beans.getBeans(PayloadCodec.class).size() > 1) {
      validation.addDeploymentProblem(new OutboxConfigurationException("PayloadCodec", "Outboxer found "
          + beans.getBeans(PayloadCodec.class).size() + " PayloadCodec beans and needs at most one"));
    }
    configuration = read;
  }

  /** The problem without the problems suppressed in it, where it was found. */
  private static OutboxConfigurationException alone(OutboxConfigurationException problem) {
    if (problem.getSuppressed().length == 0) {
      return problem;
    }
    OutboxConfigurationException alone = new OutboxConfigurationException(problem.key(), problem.getMessage());
    alone.setStackTrace(problem.getStackTrace());
    return alone;
  }

  private static Set<String> knownRelayNames(BeanManager beans, Set<String> providers) {
    Set<String> known = new TreeSet<>(providers);
    for (Bean<?> bean : beans.getBeans(Relay.class, Any.Literal.INSTANCE)) {
      if (bean.getName() != null) {
        known.add(bean.getName());
      }
      bean.getQualifiers().stream().filter(Named.class::isInstance).map(q -> ((Named) q).value())
          .filter(name -> !name.isEmpty()).forEach(known::add);
    }
    return known;
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
