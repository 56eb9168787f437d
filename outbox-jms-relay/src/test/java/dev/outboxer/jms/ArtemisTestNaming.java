package dev.outboxer.jms;

import java.util.Hashtable;
import javax.naming.Context;
import javax.naming.NamingException;
import javax.naming.spi.InitialContextFactory;
import org.apache.activemq.artemis.jndi.ActiveMQInitialContextFactory;

/**
 * A real JNDI provider for {@link JmsRelayProviderTest}: Artemis' read-only context with two
 * bindings, {@value #FACTORY} (a connection factory for the embedded broker) and {@value #QUEUE}
 * (the queue {@code jndi.orders}).
 *
 * <p>Installed only while that test runs ({@link #install()} / {@link #uninstall()}), not through a
 * {@code jndi.properties} on the test class path: Artemis' context rejects every {@code java:}
 * name with a plain {@code NamingException} ("scheme java not recognized"), and Narayana's CDI
 * beans, which the end-to-end tests' container uses, only fall back to their own objects when there
 * is no JNDI at all ({@code NoInitialContextException}).
 */
public final class ArtemisTestNaming implements InitialContextFactory {

  static final String FACTORY = "jms/jndiFactory";
  static final String QUEUE = "jms/jndiQueue";

  /** For {@code javax.naming.spi.NamingManager}. */
  public ArtemisTestNaming() {}

  @Override
  public Context getInitialContext(Hashtable<?, ?> environment) throws NamingException {
    Hashtable<Object, Object> bindings = new Hashtable<>(environment);
    bindings.put("connectionFactory." + FACTORY, EmbeddedArtemis.URL);
    bindings.put("queue." + QUEUE, "jndi.orders");
    return new ActiveMQInitialContextFactory().getInitialContext(bindings);
  }

  /** Makes {@code new InitialContext()} use this provider. */
  static void install() {
    System.setProperty(Context.INITIAL_CONTEXT_FACTORY, ArtemisTestNaming.class.getName());
  }

  /** Back to no JNDI at all, as in a plain Java SE application. */
  static void uninstall() {
    System.clearProperty(Context.INITIAL_CONTEXT_FACTORY);
  }
}
