package dev.outboxer.local;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.OutboxPersistence;
import dev.outboxer.spi.PayloadCodec;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.spi.RelayProvider;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.spi.CreationalContext;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.naming.InitialContext;
import javax.naming.NamingException;

/**
 * Creates the local relay of every outbox configured with {@code outbox.<name>.relay=local}: it
 * hands each message to an application {@link OutboxHandler} or {@link OutboxMessageHandler}
 * inside the partition worker's JTA transaction, so that the handler's database work and the
 * message's deletion commit together. See {@link dev.outboxer.local the package documentation}
 * for what that guarantees and what it does not.
 *
 * <h2>Settings</h2>
 * <table>
 *   <caption>{@code outbox.<name>.local.*} keys</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@value #HANDLER}</td><td>none</td>
 *       <td>{@code @Named} names of handler beans for this outbox, separated by commas: an {@link
 *       OutboxHandler} takes every type of the outbox (unless its {@link HandlesOutbox} names one),
 *       an {@link OutboxMessageHandler} its message class's type. Not needed for handlers selected
 *       by {@link HandlesOutbox} or by their message class's {@code @Outboxed}.</td></tr>
 * </table>
 * The key is declared once, with its type, default and meaning, and listed by {@link
 * LocalSettingsCatalog} for the configuration reference; it is read with the SPI's {@link
 * dev.outboxer.spi.SettingsReader}. Any other key under {@code outbox.<name>.local.} is rejected,
 * naming the nearest known key.
 *
 * <h2>Checked at deployment</h2>
 * Every outbox with {@code relay=local} has at least one handler; no two handlers take the same
 * message type of one outbox (nor two every type); every name in {@value #HANDLER} is a handler
 * bean; every handler bean can be attributed (an {@link OutboxMessageHandler} of a concrete class,
 * not both interfaces at once). All problems are reported together.
 */
@ApplicationScoped
public class LocalRelayProvider implements RelayProvider {

  /** The provider name, used in {@code outbox.<name>.relay=local} and as the key prefix. */
  public static final String NAME = "local";

  /** Key of the {@code @Named} names of handler beans, separated by commas. Optional. */
  public static final String HANDLER = "handler";

  @Inject BeanManager beans;
  @Inject Instance<PayloadCodec> codecs;
  @Inject Instance<TransactionSynchronizationRegistry> registries;
  @Inject @OutboxPersistence Instance<EntityManager> outboxEntityManagers;
  @Inject Instance<EntityManager> defaultEntityManagers;

  /** For CDI. */
  public LocalRelayProvider() {}

  /**
   * @return {@value #NAME}
   */
  @Override
  public String name() {
    return NAME;
  }

  /**
   * Checks the settings and the handler beans of one outbox, from bean metadata only: no handler
   * is created.
   *
   * @throws OutboxConfigurationException the first problem, the others suppressed
   */
  @Override
  public void validate(RelayContext context) {
    List<OutboxConfigurationException> problems = new ArrayList<>();
    LocalSettings settings = LocalSettings.read(context, problems);
    HandlerRoutes.discover(beans, context, settings, problems);
    throwAll(problems);
  }

  /**
   * Looks up the handler beans of the outbox and the worker transaction's registry, and creates the
   * relay. Handler beans are looked up once: a normal-scoped bean through its client proxy, a
   * {@code @Dependent} one as a single instance kept until the relay is closed.
   *
   * @throws OutboxConfigurationException if a setting or handler is wrong, as {@link #validate}
   *     reports it, or if payloads must be decoded and no JSON-B implementation is visible
   */
  @Override
  public Relay create(RelayContext context) {
    List<OutboxConfigurationException> problems = new ArrayList<>();
    LocalSettings settings = LocalSettings.read(context, problems);
    HandlerRoutes routes = HandlerRoutes.discover(beans, context, settings, problems);
    throwAll(problems);

    List<CreationalContext<?>> dependents = new ArrayList<>();
    Map<HandlerRoutes.Route, LocalRelay.Invoker> invokers = new HashMap<>();
    boolean decodes = false;
    for (HandlerRoutes.Route route : routes.all()) {
      CreationalContext<?> creational = beans.createCreationalContext(route.bean());
      dependents.add(creational);
      Object handler = beans.getReference(route.bean(), route.beanType(), creational);
      if (route.messageClass() == null) {
        OutboxHandler raw = (OutboxHandler) handler;
        invokers.put(route, (record, message) -> raw.handle(record));
      } else {
        @SuppressWarnings("unchecked")
        OutboxMessageHandler<Object> typed = (OutboxMessageHandler<Object>) handler;
        invokers.put(route, (record, message) -> typed.handle(message, record));
        decodes = true;
      }
    }
    PayloadDecoder decoder = !decodes ? PayloadDecoder.NONE
        : codecs.isResolvable() ? PayloadDecoder.of(codecs.get()) : PayloadDecoder.jsonb(context.outbox());
    return new LocalRelay(context.outbox(), routes, invokers, decoder, new WorkerTransaction(registry(context)),
        flush(), () -> dependents.forEach(CreationalContext::release));
  }

  /** The outbox's EntityManager, found as Outboxer finds it: {@code @OutboxPersistence}, else the only default one. */
  private LocalRelay.Flush flush() {
    Instance<EntityManager> found = outboxEntityManagers.isResolvable() ? outboxEntityManagers
        : defaultEntityManagers.isResolvable() ? defaultEntityManagers : null;
    if (found == null) {
      return LocalRelay.Flush.NONE;
    }
    EntityManager entityManager = found.get();
    return () -> {
      if (entityManager.isJoinedToTransaction()) {
        entityManager.flush();
      }
    };
  }

  private TransactionSynchronizationRegistry registry(RelayContext context) {
    if (registries.isResolvable()) {
      return registries.get();
    }
    String name = "java:comp/TransactionSynchronizationRegistry";
    try {
      return (TransactionSynchronizationRegistry) new InitialContext().lookup(name);
    } catch (NamingException | RuntimeException e) {
      throw new OutboxConfigurationException(keyOf(context.outbox()), "The local relay of outbox '" + context.outbox()
          + "' needs the JTA TransactionSynchronizationRegistry to see the worker's transaction, and found neither a"
          + " CDI bean of that type nor " + name + " in JNDI (" + e + "). In Java SE, produce one as a CDI bean"
          + " (Narayana: jtaPropertyManager.getJTAEnvironmentBean().getTransactionSynchronizationRegistry()).");
    }
  }

  private static void throwAll(List<OutboxConfigurationException> problems) {
    if (!problems.isEmpty()) {
      OutboxConfigurationException first = problems.get(0);
      problems.stream().skip(1).forEach(first::addSuppressed);
      throw first;
    }
  }

  /** {@code outbox.<name>.relay}: the key to blame for a handler problem that no other key causes. */
  static String keyOf(String outbox) {
    return "outbox." + outbox + ".relay";
  }

  /** {@code outbox.<name>.local.handler}. */
  static String handlerKey(String outbox) {
    return "outbox." + outbox + "." + NAME + "." + HANDLER;
  }
}
