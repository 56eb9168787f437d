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
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Default;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Named;
import jakarta.persistence.EntityManager;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.eclipse.microprofile.config.Config;

/**
 * The checks Outboxer makes before it starts, whatever the container: every configuration value,
 * every relay name (with the nearest known one), every relay module's own settings, every {@code
 * @Outboxed} type's outbox, the persistence Outboxer writes through and the payload codec. Every
 * problem is collected, none stops the others from being found, so that one failed start names
 * them all.
 *
 * <p>{@link OutboxExtension} runs it at a CDI container's deployment validation; a platform without
 * portable extensions (Quarkus) runs it at start. Not guaranteed: problems only the database can
 * reveal (the schema, the rules in force) are found later, by {@code OutboxRuntime}.
 */
public final class DeploymentCheck {

  static final String MISSING_ENTITY_MANAGER = "Outboxer needs to know where your business data lives, so that"
      + " messages commit with it: produce the JTA data source with @Produces @OutboxPersistence (for example on a"
      + " field annotated @Resource(lookup = \"jdbc/orders\")), or set outbox.datasource=jdbc/orders, or produce your"
      + " persistence unit's EntityManager with @Produces @OutboxPersistence (on a field annotated"
      + " @PersistenceContext(unitName = \"...\"))";

  private final List<Throwable> problems;
  private final OutboxConfiguration configuration;

  private DeploymentCheck(List<Throwable> problems, OutboxConfiguration configuration) {
    this.problems = List.copyOf(problems);
    this.configuration = configuration;
  }

  /**
   * Reads the configuration and checks it against the container's beans and the {@code @Outboxed} types.
   *
   * @param beans the container's beans: relay providers, {@code @Named} relays, persistence, codecs
   * @param outboxedTypes the application's classes annotated {@code @Outboxed}
   * @param config the application's MicroProfile Config
   */
  public static DeploymentCheck run(BeanManager beans, Collection<Class<?>> outboxedTypes, Config config) {
    List<Throwable> problems = new ArrayList<>();
    Map<String, RelayProvider> providers = new HashMap<>();
    beans.createInstance().select(RelayProvider.class, Any.Literal.INSTANCE).forEach(p -> providers.put(p.name(), p));
    OutboxConfigReader.Result result = new OutboxConfigReader(
        key -> config.getOptionalValue(key, String.class), config.getPropertyNames(), providers.keySet()).read();
    problems.addAll(result.problems());
    // The relays' own settings are checked even when other keys have problems: all of them in one failed start.
    for (OutboxConfigReader.RelayCheck relay : result.relayChecks()) {
      RelayProvider provider = providers.get(relay.relay());
      if (provider != null) {
        try {
          provider.validate(relay.context());
        } catch (OutboxConfigurationException invalid) {
          // Each problem once, on its own: the relay's first problem carries the others suppressed, and the container
          // lists every problem too, so the trace showed each twice, ending in "[CIRCULAR REFERENCE: ...]".
          problems.add(alone(invalid));
          for (Throwable more : invalid.getSuppressed()) {
            problems.add(more instanceof OutboxConfigurationException problem ? alone(problem) : more);
          }
        } catch (RuntimeException broken) {
          problems.add(new OutboxConfigurationException(relay.relayKey(), "The "
              + relay.relay() + " relay could not check the settings of outbox '" + relay.context().outbox() + "': "
              + broken));
        }
      } else if (beans.getBeans(Relay.class, jakarta.enterprise.inject.literal.NamedLiteral.of(relay.relay()))
          .isEmpty()) {
        Set<String> known = knownRelayNames(beans, providers.keySet());
        String key = relay.relayKey();
        problems.add(new OutboxConfigurationException(key, key + "=" + relay.relay()
            + " names no relay." + ConfigKeyNames.didYouMean(relay.relay(), known) + " Known relays: " + known
            + " (relay modules on the classpath and @Named CDI beans implementing dev.outboxer.spi.Relay). Add the"
            + " relay module to the application (outbox-jms-relay, outbox-kafka-relay, outbox-sqs-relay,"
            + " outbox-local-relay), or fix the name."));
      }
    }
    if (!result.valid()) {
      return new DeploymentCheck(problems, null);
    }
    OutboxConfiguration read = result.configuration();

    for (Class<?> type : outboxedTypes) {
      String outbox = type.getAnnotation(Outboxed.class).value();
      if (read.find(outbox).isEmpty()) {
        String key = ConfigKeys.key(outbox, CoreSettings.RELAY);
        problems.add(new OutboxConfigurationException(key, type.getName() + " is @Outboxed(\""
            + outbox + "\") but no outbox of that name is configured: set " + key + " (configured: "
            + new TreeSet<>(read.outboxes().keySet()) + ")." + ConfigKeyNames.didYouMean(outbox, read.outboxes().keySet())));
      }
    }
    if (!read.outboxes().isEmpty() && read.dataSource().isEmpty()
        && beans.getBeans(javax.sql.DataSource.class, OutboxPersistenceLiteral.INSTANCE).isEmpty()
        && beans.getBeans(EntityManager.class, OutboxPersistenceLiteral.INSTANCE).isEmpty()
        && beans.getBeans(EntityManager.class, Default.Literal.INSTANCE).size() != 1) {
      problems.add(new OutboxConfigurationException(
          "@" + OutboxPersistence.class.getSimpleName(), MISSING_ENTITY_MANAGER));
    }
    if (beans.getBeans(PayloadCodec.class).size() > 1) {
      problems.add(new OutboxConfigurationException("PayloadCodec", "Outboxer found "
          + beans.getBeans(PayloadCodec.class).size() + " PayloadCodec beans and needs at most one"));
    }
    return new DeploymentCheck(problems, read);
  }

  /** Every problem found, in the order found; empty when Outboxer may start. */
  public List<Throwable> problems() {
    return problems;
  }

  /** The configuration read, if it could be read (it may still have {@linkplain #problems() problems} elsewhere). */
  public Optional<OutboxConfiguration> configuration() {
    return Optional.ofNullable(configuration);
  }

  /**
   * For a container that reports one failure: the first problem, with every problem's message in
   * its own and the others suppressed in it; empty when there is none.
   */
  public Optional<OutboxConfigurationException> failure() {
    if (problems.isEmpty()) {
      return Optional.empty();
    }
    StringBuilder message = new StringBuilder("Outboxer's configuration has ").append(problems.size())
        .append(problems.size() == 1 ? " problem:" : " problems:");
    problems.forEach(problem -> message.append("\n  - ").append(problem.getMessage()));
    Throwable first = problems.get(0);
    OutboxConfigurationException failure = new OutboxConfigurationException(
        first instanceof OutboxConfigurationException keyed ? keyed.key() : "outbox", message.toString());
    problems.forEach(failure::addSuppressed);
    return Optional.of(failure);
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
}
