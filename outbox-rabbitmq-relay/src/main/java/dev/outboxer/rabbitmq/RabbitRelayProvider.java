package dev.outboxer.rabbitmq;

import dev.outboxer.spi.MessageConstraints;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.spi.RelayProvider;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Creates the RabbitMQ relay of every outbox configured with {@code outbox.<name>.relay=rabbitmq}.
 *
 * <h2>Settings</h2>
 * The {@code outbox.<name>.rabbitmq.*} keys ({@value #HOST}, {@value #PORT}, {@value #VIRTUAL_HOST},
 * {@value #USERNAME}, {@value #PASSWORD}, {@value #EXCHANGE}, {@value #ROUTING_KEY}, {@value
 * #MANDATORY}, {@value #PERSISTENT}, {@value #MAX_MESSAGE_SIZE}, {@value #CONFIRM_TIMEOUT}, {@value
 * #CONNECTION_TIMEOUT}, {@value #CONNECTION_NAME}), each with its type, range, default and meaning,
 * are declared once and listed by {@link RabbitSettingsCatalog} for the configuration reference.
 * They are read with the SPI's {@link dev.outboxer.spi.SettingsReader}; the password is never
 * shown. Every key is checked by {@link #validate} at deployment, on every node, without
 * connecting: all problems are reported at once, each naming the key, the value and the fix; an
 * unknown key names the nearest known one.
 *
 * <h2>Guarantees</h2>
 * See {@link dev.outboxer.rabbitmq the package documentation}: publisher confirms, returns of
 * unroutable messages, the order RabbitMQ keeps, fencing, and what a consumer receives.
 */
@ApplicationScoped
public class RabbitRelayProvider implements RelayProvider {

  /** The provider name, used in {@code outbox.<name>.relay=rabbitmq} and as the key prefix. */
  public static final String NAME = "rabbitmq";

  /** Key of the broker's host name. */
  public static final String HOST = "host";

  /** Key of the broker's AMQP port. */
  public static final String PORT = "port";

  /** Key of the virtual host. */
  public static final String VIRTUAL_HOST = "virtual-host";

  /** Key of the user name. */
  public static final String USERNAME = "username";

  /** Key of the password; never written to a message or log. */
  public static final String PASSWORD = "password";

  /** Key of the exchange every message is published to. */
  public static final String EXCHANGE = "exchange";

  /** Key of a fixed routing key; without it the group key is the routing key. */
  public static final String ROUTING_KEY = "routing-key";

  /** Key of the mandatory flag: an unroutable message comes back and fails its record. */
  public static final String MANDATORY = "mandatory";

  /** Key of the delivery mode: persistent (2) or transient (1). */
  public static final String PERSISTENT = "persistent";

  /** Key of the largest message body the relay sends (RabbitMQ's {@code max_message_size}). */
  public static final String MAX_MESSAGE_SIZE = "max-message-size";

  /** Key of how long the relay waits for the broker's confirms of one wave of a batch. */
  public static final String CONFIRM_TIMEOUT = "confirm-timeout";

  /** Key of how long opening the connection may take (TCP and AMQP handshake). */
  public static final String CONNECTION_TIMEOUT = "connection-timeout";

  /** Key of the connection's name, shown in the management UI and {@code rabbitmqctl}. */
  public static final String CONNECTION_NAME = "connection-name";

  /** For CDI. */
  public RabbitRelayProvider() {}

  /**
   * @return {@value #NAME}
   */
  @Override
  public String name() {
    return NAME;
  }

  /**
   * Checks every {@code outbox.<name>.rabbitmq.*} key without connecting anywhere.
   *
   * @param context the outbox and its settings
   * @throws dev.outboxer.OutboxConfigurationException the first problem, with every other one
   *     {@linkplain Throwable#getSuppressed() suppressed}
   */
  @Override
  public void validate(RelayContext context) {
    RabbitSettings.from(context);
  }

  /**
   * What an AMQP 0-9-1 message cannot carry: a header name, a type or a content type longer than
   * 255 bytes in UTF-8 (AMQP short strings), and a payload larger than {@value #MAX_MESSAGE_SIZE}.
   * The relay checks stored records again before it sends.
   *
   * @param context the outbox and its settings (already validated)
   * @return thread-safe constraints
   */
  @Override
  public MessageConstraints constraints(RelayContext context) {
    return new RabbitMessageConstraints(RabbitSettings.from(context).maxMessageSize());
  }

  /**
   * Validates the settings and creates the relay. Connects nowhere: a broker that is down at
   * start-up fails batches, not the deployment; the connection is opened at the first batch.
   *
   * @param context the outbox and its settings
   * @return a thread-safe relay that owns one connection, released by {@link Relay#close()}
   * @throws dev.outboxer.OutboxConfigurationException if a setting is missing or invalid
   */
  @Override
  public Relay create(RelayContext context) {
    return new RabbitRelay(RabbitSettings.from(context));
  }
}
