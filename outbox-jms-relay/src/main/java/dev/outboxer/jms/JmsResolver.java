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
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.naming.InitialContext;
import javax.naming.NamingException;

/** Finds the connection factory and the destination: JNDI first, then CDI. */
final class JmsResolver {

  /** SmallRye's qualifier of a named configuration's bean in Quarkus (see {@link #identified}). */
  static final String IDENTIFIER = "io.smallrye.common.annotation.Identifier";

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

  /**
   * Narayana's {@code ConnectionFactoryProxy} (by name: Narayana's JMS integration is optional here),
   * also behind a CDI client proxy: a normal-scoped producer's bean ({@code @ApplicationScoped}) reaches
   * the relay as ArC's (Quarkus) or Weld's proxy, a subclass of neither.
   */
  static boolean isJtaAwareBean(ConnectionFactory factory) {
    for (Class<?> type = contextualInstance(factory).getClass(); type != null; type = type.getSuperclass()) {
      if (type.getName().equals("org.jboss.narayana.jta.jms.ConnectionFactoryProxy")) {
        return true;
      }
    }
    return false;
  }

  /**
   * The object behind ArC's or Weld's client proxy, or {@code bean} itself. By name, through the
   * containers' own interfaces ({@code io.quarkus.arc.ClientProxy#arc_contextualInstance}, {@code
   * org.jboss.weld.proxy.WeldClientProxy#getMetadata().getContextualInstance}), so that the relay
   * depends on neither; getting it creates the bean if it was not yet (a factory opens no connection
   * when it is made). {@code bean} itself when it cannot be unwrapped.
   */
  static Object contextualInstance(Object bean) {
    for (Class<?> type = bean.getClass(); type != null; type = type.getSuperclass()) {
      for (Class<?> contract : type.getInterfaces()) {
        try {
          switch (contract.getName()) {
            case "io.quarkus.arc.ClientProxy":
              return contract.getMethod("arc_contextualInstance").invoke(bean);
            case "org.jboss.weld.proxy.WeldClientProxy": {
              Method metadata = contract.getMethod("getMetadata");
              return metadata.getReturnType().getMethod("getContextualInstance").invoke(metadata.invoke(bean));
            }
            default:
              break;
          }
        } catch (ReflectiveOperationException | RuntimeException cannotUnwrap) {
          return bean;
        }
      }
    }
    return bean;
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
          setting + ": JNDI has no " + jndiName + " and more than one CDI bean of type " + type.getName()
              + " is qualified " + qualifier + ". Keep exactly one, or name one with @Named and set " + fullKey
              + " to that name.");
    }
    if (configured.isPresent()) {
      List<Instance.Handle<T>> identified = identified(beans, configured.get());
      if (identified.size() == 1) {
        return identified.get(0).get();
      }
      if (identified.size() > 1) {
        throw new OutboxConfigurationException(
            fullKey,
            setting + ": JNDI has no " + jndiName + ", no CDI bean of type " + type.getName() + " is qualified "
                + qualifier + ", and more than one is qualified @Identifier(\"" + configured.get() + "\")."
                + " Keep exactly one.");
      }
      qualifier += " or @Identifier(\"" + configured.get() + "\")";
    }
    throw new OutboxConfigurationException(
        fullKey,
        setting + ": found neither the JNDI name " + jndiName + " (" + jndiProblem
            + ") nor a CDI bean of type " + type.getName() + " qualified " + qualifier + ". "
            + hint(key, configured, type));
  }

  /**
   * The beans qualified {@code @io.smallrye.common.annotation.Identifier(name)}: the qualifier Quarkus
   * extensions give the objects of a named configuration (quarkus-artemis-jms: the connection factory
   * of {@code quarkus.artemis."<name>".*}). Found by the qualifier's class name, so that the relay
   * needs no SmallRye dependency; none where no bean carries it.
   */
  private static <T> List<Instance.Handle<T>> identified(Instance<T> beans, String name) {
    List<Instance.Handle<T>> found = new ArrayList<>();
    for (Instance.Handle<T> handle : beans.handles()) {
      for (Annotation qualifier : handle.getBean().getQualifiers()) {
        if (qualifier.annotationType().getName().equals(IDENTIFIER) && name.equals(valueOf(qualifier))) {
          found.add(handle);
        }
      }
    }
    return found;
  }

  private static Object valueOf(Annotation qualifier) {
    try {
      return qualifier.annotationType().getMethod("value").invoke(qualifier);
    } catch (ReflectiveOperationException | RuntimeException notAnIdentifier) {
      return null;
    }
  }

  private String hint(String key, Optional<String> configured, Class<?> type) {
    String fullKey = context.fullKey(NAME, key);
    if (configured.isPresent()) {
      return "In an application server, bind a " + type.getSimpleName() + " under that JNDI name;"
          + " in Java SE or Quarkus, add a producer: @Produces @Named(\"" + configured.get() + "\") "
          + type.getSimpleName() + " ..."
          + (type == ConnectionFactory.class ? "; in Quarkus, quarkus-artemis-jms names the factory of"
              + " quarkus.artemis.\"" + configured.get() + "\".* so" : "");
    }
    return "Set " + fullKey + " to the JNDI name of a " + type.getSimpleName() + ", or (Java SE, Quarkus)"
        + " produce one as a CDI bean: @Produces " + type.getSimpleName() + " ... (in Quarkus, quarkus-artemis-jms"
        + " makes the @Default one of quarkus.artemis.*)";
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
