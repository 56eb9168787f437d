package dev.outboxer.jms;

import dev.outboxer.spi.MessageConstraints;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.spi.RelayProvider;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.Destination;
import java.time.Clock;

/**
 * Creates the JMS relay of every outbox configured with {@code outbox.<name>.relay=jms}.
 *
 * <h2>Settings</h2>
 * The {@code outbox.<name>.jms.*} keys ({@value #CONNECTION_FACTORY}, {@value #DESTINATION},
 * {@value #DELIVERY_MODE}, {@value #PRIORITY}, {@value #TIME_TO_LIVE}), each with its type, range,
 * default and meaning, are declared once and listed by {@link JmsSettingsCatalog} for the
 * configuration reference; only {@value #DESTINATION} is required.
 * They are read with the SPI's {@link dev.outboxer.spi.SettingsReader}: any other key under
 * {@code outbox.<name>.jms.} is rejected, naming the nearest known key, so a typo fails the
 * deployment; every problem is reported at once.
 *
 * <h2>Where the connection factory and the destination come from</h2>
 * For each of the two, in this order:
 * <ol>
 *   <li>JNDI: the configured name, or {@code java:comp/DefaultJMSConnectionFactory} for an unset
 *       connection factory. This is the application-server way.</li>
 *   <li>CDI, if the JNDI lookup fails for any reason (no JNDI in Java SE, none in Quarkus, name not
 *       bound): the bean of type {@link ConnectionFactory} or {@link Destination} qualified
 *       {@code @Named("<configured name>")}, else the one qualified SmallRye's
 *       {@code @Identifier("<configured name>")} (Quarkus extensions' qualifier of a named
 *       configuration's objects, e.g. quarkus-artemis-jms' {@code quarkus.artemis."<name>".*} factory),
 *       or, for an unset connection factory, the {@code @Default} {@link ConnectionFactory} bean. This
 *       is the Java SE and Quarkus way.</li>
 * </ol>
 * If neither yields exactly one object of the right type, {@link #create} throws {@link
 * dev.outboxer.OutboxConfigurationException} naming the key and the value, and the deployment
 * fails. Both are resolved once, in {@code create}; no connection is opened there, so a broker that
 * is down at start-up does not fail the deployment.
 *
 * <h2>Guarantees</h2>
 * See {@link dev.outboxer.jms the package documentation}: message mapping, the order kept, and
 * exactly-once hand-over with an XA connection factory versus at-least-once without one.
 */
@ApplicationScoped
public class JmsRelayProvider implements RelayProvider {

  /** The provider name, used in {@code outbox.<name>.relay=jms} and as the key prefix. */
  public static final String NAME = "jms";

  /** Key of the connection factory's JNDI or {@code @Named} name. */
  public static final String CONNECTION_FACTORY = "connection-factory";

  /** Key of the destination's JNDI or {@code @Named} name: a queue or a topic. Required. */
  public static final String DESTINATION = "destination";

  /** Key of the delivery mode: {@code persistent} or {@code non-persistent}. */
  public static final String DELIVERY_MODE = "delivery-mode";

  /** Key of the JMS priority, 0 (lowest) to 9 (highest). */
  public static final String PRIORITY = "priority";

  /** Key of the time-to-live after which the broker may drop an unconsumed message. */
  public static final String TIME_TO_LIVE = "time-to-live";

  @Inject @Any private Instance<ConnectionFactory> connectionFactoryBeans;

  @Inject @Any private Instance<Destination> destinationBeans;

  /** For CDI. */
  public JmsRelayProvider() {}

  /**
   * @return {@value #NAME}
   */
  @Override
  public String name() {
    return NAME;
  }

  /**
   * Checks the {@code outbox.<name>.jms.*} settings without looking anything up: unknown keys (with
   * the nearest known one), a missing destination, and bad values, all at once. Whether the names
   * resolve is checked by {@link #create}.
   *
   * @param context the outbox and its settings
   * @throws dev.outboxer.OutboxConfigurationException naming the key and the value of the first
   *     problem, with every further problem suppressed in it
   */
  @Override
  public void validate(RelayContext context) {
    JmsSettings.from(context);
  }

  /**
   * One rule beyond Outboxer's own: no two headers of a message may map to the same property name
   * ({@link JmsMessageProperties#forHeader}: {@code a.b} and {@code a_DOT_b} would both be sent as
   * {@code a_DOT_b}, and one would be lost). JMS puts no limit on property values or body size. A
   * broker's own limits (a maximum message size, a quota) are not known here; a send the broker
   * refuses fails like any other.
   *
   * @param context the outbox and its settings
   * @return the constraints checked at every publish
   */
  @Override
  public MessageConstraints constraints(RelayContext context) {
    return new JmsHeaderConstraints();
  }

  /**
   * Validates the settings, resolves the connection factory and the destination, and creates the
   * relay. Opens no connection.
   *
   * @param context the outbox and its {@code outbox.<name>.jms.*} settings
   * @return a thread-safe relay that opens one connection and one session per batch
   * @throws dev.outboxer.OutboxConfigurationException naming the key and the value of a missing,
   *     unknown or invalid setting, or of a name that resolves to nothing
   */
  @Override
  public Relay create(RelayContext context) {
    JmsSettings settings = JmsSettings.from(context);
    JmsResolver resolver = new JmsResolver(context, connectionFactoryBeans, destinationBeans);
    ConnectionFactory connectionFactory = resolver.connectionFactory(settings.connectionFactory());
    Destination destination = resolver.destination(settings.destination());
    return new JmsRelay(
        context.outbox(),
        connectionFactory,
        settings.connectionFactory().orElse(JmsSettings.defaultConnectionFactory()),
        destination,
        settings,
        Clock.systemUTC(),
        resolver.connectionFactoryJtaAware(connectionFactory));
  }
}
