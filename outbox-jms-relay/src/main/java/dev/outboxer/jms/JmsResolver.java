package dev.outboxer.jms;

import static dev.outboxer.jms.JmsRelayProvider.CONNECTION_FACTORY;
import static dev.outboxer.jms.JmsRelayProvider.DESTINATION;
import static dev.outboxer.jms.JmsRelayProvider.NAME;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.spi.RelayContext;
import jakarta.enterprise.inject.Default;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.literal.NamedLiteral;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.Destination;
import java.util.Optional;
import javax.naming.InitialContext;
import javax.naming.NamingException;

/** Finds the connection factory and the destination: JNDI first, then CDI. */
final class JmsResolver {

  private final RelayContext context;
  private final Instance<ConnectionFactory> connectionFactoryBeans;
  private final Instance<Destination> destinationBeans;
  private boolean connectionFactoryInJndi;

  JmsResolver(
      RelayContext context,
      Instance<ConnectionFactory> connectionFactoryBeans,
      Instance<Destination> destinationBeans) {
    this.context = context;
    this.connectionFactoryBeans = connectionFactoryBeans;
    this.destinationBeans = destinationBeans;
  }

  ConnectionFactory connectionFactory(Optional<String> configuredName) {
    return resolve(CONNECTION_FACTORY, configuredName, ConnectionFactory.class, connectionFactoryBeans);
  }

  /**
   * Whether the connection factory resolved last enlists its sessions in the caller's JTA
   * transaction: one found in JNDI does (application servers bind JTA-aware, pooled factories
   * there), a CDI bean only if it is Narayana's proxy. A bare provider factory does not, even one
   * that also implements {@link jakarta.jms.XAConnectionFactory} (Artemis' does): its {@code
   * createConnection} hands out plain connections.
   */
  boolean connectionFactoryJtaAware(ConnectionFactory resolved) {
    return connectionFactoryInJndi || isJtaAwareBean(resolved);
  }

  /** Narayana's {@code ConnectionFactoryProxy} (by name: Narayana's JMS integration is optional here). */
  static boolean isJtaAwareBean(ConnectionFactory factory) {
    for (Class<?> type = factory.getClass(); type != null; type = type.getSuperclass()) {
      if (type.getName().equals("org.jboss.narayana.jta.jms.ConnectionFactoryProxy")) {
        return true;
      }
    }
    return false;
  }

  Destination destination(String configuredName) {
    return resolve(DESTINATION, Optional.of(configuredName), Destination.class, destinationBeans);
  }

  private <T> T resolve(String key, Optional<String> configured, Class<T> type, Instance<T> beans) {
    String fullKey = context.fullKey(NAME, key);
    String jndiName = configured.orElse(JmsSettings.defaultConnectionFactory());
    String setting = configured.map(name -> fullKey + "=" + name).orElse(fullKey + " (not set)");

    String jndiProblem;
    try {
      Object found = lookup(jndiName);
      if (type.isInstance(found)) {
        connectionFactoryInJndi |= type == ConnectionFactory.class;
        return type.cast(found);
      }
      throw new OutboxConfigurationException(
          fullKey,
          setting + ": the JNDI name " + jndiName + " is bound to "
              + (found == null ? "null" : "a " + found.getClass().getName()) + ", not a "
              + type.getName() + ". Point the key at a " + type.getSimpleName() + ".");
    } catch (NamingException e) {
      // No JNDI (Java SE) or not bound there: CDI is the second source.
      jndiProblem = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }

    String qualifier = configured.map(name -> "@Named(\"" + name + "\")").orElse("@Default");
    Instance<T> candidates =
        configured.isPresent()
            ? beans.select(NamedLiteral.of(configured.get()))
            : beans.select(Default.Literal.INSTANCE);
    if (candidates.isResolvable()) {
      return candidates.get();
    }
    if (candidates.isAmbiguous()) {
      throw new OutboxConfigurationException(
          fullKey,
          setting + ": JNDI has no " + jndiName + " and more than one CDI bean of type "
              + type.getName() + " is qualified " + qualifier + ". Keep exactly one, or name one"
              + " with @Named and set " + fullKey + " to that name.");
    }
    throw new OutboxConfigurationException(
        fullKey,
        setting + ": found neither the JNDI name " + jndiName + " (" + jndiProblem
            + ") nor a CDI bean of type " + type.getName() + " qualified " + qualifier + ". "
            + hint(key, configured, type));
  }

  private String hint(String key, Optional<String> configured, Class<?> type) {
    String fullKey = context.fullKey(NAME, key);
    if (configured.isPresent()) {
      return "In an application server, bind a " + type.getSimpleName() + " under that JNDI name;"
          + " in Java SE, add a producer: @Produces @Named(\"" + configured.get() + "\") "
          + type.getSimpleName() + " ...";
    }
    return "Set " + fullKey + " to the JNDI name of a " + type.getSimpleName() + ", or (Java SE)"
        + " produce one as a CDI bean: @Produces " + type.getSimpleName() + " ...";
  }

  private static Object lookup(String name) throws NamingException {
    InitialContext naming = new InitialContext();
    try {
      return naming.lookup(name);
    } finally {
      naming.close();
    }
  }
}
