package dev.outboxer.cdi.internal.work;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.cdi.internal.config.OutboxSettings;
import dev.outboxer.spi.CoreSettings;
import dev.outboxer.spi.MessageConstraints;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.spi.RelayInterceptor;
import dev.outboxer.spi.RelayProvider;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.literal.NamedLiteral;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Finds the relay of each outbox: a {@link RelayProvider} of that name (the relay modules), else an
 * application bean implementing {@link Relay} with that {@code @Named} name.
 */
@ApplicationScoped
public class Relays {

  private static final Logger LOG = Logger.getLogger(Relays.class.getName());

  @Inject @Any Instance<RelayProvider> providers;
  @Inject @Any Instance<Relay> relayBeans;
  @Inject @Any Instance<RelayInterceptor> interceptors;

  private final List<Relay> created = new ArrayList<>();
  /** Outbox name to relay name, for the relays that enlist in the worker's transaction. */
  private final Map<String, String> enlisting = new TreeMap<>();
  /** The outboxes whose relay does not use the worker's transaction at all. */
  private final java.util.Set<String> outsideWorkerTransaction = new TreeSet<>();

  /** The names a relay key may take here, for error messages and the deployment check. */
  public TreeSet<String> knownNames() {
    TreeSet<String> names = new TreeSet<>();
    providers.forEach(provider -> names.add(provider.name()));
    return names;
  }

  /**
   * The relay of an outbox, decorated by every {@link RelayInterceptor} bean. Provider-created
   * relays are closed by {@link #closeAll()}.
   */
  public synchronized Relay relayFor(OutboxSettings settings) {
    Relay relay = undecoratedRelayFor(settings);
    for (RelayInterceptor interceptor : interceptors) {
      Relay decorated = interceptor.intercept(relay, context(settings));
      if (decorated != null) {
        relay = decorated;
      }
    }
    return relay;
  }

  /**
   * The outboxes (to their relay names) whose relay, as created by {@link #relayFor}, enlists in the
   * worker's JTA transaction ({@link Relay#enlistsInWorkerTransaction()}).
   */
  public synchronized Map<String, String> enlisting() {
    return new TreeMap<>(enlisting);
  }

  /**
   * Whether the relay of an outbox, as created by {@link #relayFor}, does not use the worker's
   * transaction ({@link Relay#usesWorkerTransaction()} {@code false}, and not enlisting either).
   */
  public synchronized boolean outsideWorkerTransaction(String outbox) {
    return outsideWorkerTransaction.contains(outbox);
  }

  private Relay undecoratedRelayFor(OutboxSettings settings) {
    Relay relay = createRelay(settings);
    // Asked of the relay itself: a decorator would answer with the interface's default.
    boolean enlists = relay.enlistsInWorkerTransaction();
    if (enlists) {
      enlisting.put(settings.name(), settings.relay());
    } else if (!relay.usesWorkerTransaction()) {
      outsideWorkerTransaction.add(settings.name());
    }
    return relay;
  }

  private Relay createRelay(OutboxSettings settings) {
    Optional<RelayProvider> provider = provider(settings.relay());
    if (provider.isPresent()) {
      Relay relay = provider.get().create(context(settings));
      created.add(relay);
      return relay;
    }
    Instance<Relay> bean = relayBeans.select(NamedLiteral.of(settings.relay()));
    if (!bean.isResolvable()) {
      String key = settings.key(CoreSettings.RELAY);
      throw new OutboxConfigurationException(key, key + "=" + settings.relay() + " names no relay: not a relay module"
          + " (known: " + knownNames() + ") and not a @Named CDI bean implementing dev.outboxer.spi.Relay");
    }
    return bean.get();
  }

  private Optional<RelayProvider> provider(String name) {
    for (RelayProvider provider : providers) {
      if (provider.name().equals(name)) {
        return Optional.of(provider);
      }
    }
    return Optional.empty();
  }

  /** What the outbox's destination cannot carry: the provider's constraints, or a relay bean's own if it declares any. */
  public MessageConstraints constraintsFor(OutboxSettings settings) {
    Optional<RelayProvider> provider = provider(settings.relay());
    if (provider.isPresent()) {
      MessageConstraints constraints = provider.get().constraints(context(settings));
      return constraints == null ? MessageConstraints.NONE : constraints;
    }
    Instance<Relay> bean = relayBeans.select(NamedLiteral.of(settings.relay()));
    if (bean.isResolvable() && bean.get() instanceof MessageConstraints constraints) {
      return constraints;
    }
    return MessageConstraints.NONE;
  }

  private static RelayContext context(OutboxSettings settings) {
    return new RelayContext(settings.name(), settings.ordering(), settings.partitions(), settings.relayTimeout(),
        settings.relayProperties());
  }

  public synchronized void closeAll() {
    for (Relay relay : created) {
      try {
        relay.close();
      } catch (Exception e) {
        LOG.log(Level.WARNING, "Closing relay " + relay + " failed", e);
      }
    }
    created.clear();
    enlisting.clear();
    outsideWorkerTransaction.clear();
  }
}
