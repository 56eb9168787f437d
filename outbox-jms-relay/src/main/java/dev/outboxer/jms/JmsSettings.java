package dev.outboxer.jms;

import static dev.outboxer.jms.JmsRelayProvider.CONNECTION_FACTORY;
import static dev.outboxer.jms.JmsRelayProvider.DELIVERY_MODE;
import static dev.outboxer.jms.JmsRelayProvider.DESTINATION;
import static dev.outboxer.jms.JmsRelayProvider.NAME;
import static dev.outboxer.jms.JmsRelayProvider.PRIORITY;
import static dev.outboxer.jms.JmsRelayProvider.TIME_TO_LIVE;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.spi.ConfigKeyNames;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.spi.Setting;
import dev.outboxer.spi.SettingsDeclaration;
import dev.outboxer.spi.SettingsReader;
import jakarta.jms.DeliveryMode;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The validated {@code outbox.<name>.jms.*} settings of one outbox, read with the SPI's {@link
 * SettingsReader} from the keys declared here (listed for the reference by {@link
 * JmsSettingsCatalog}).
 *
 * @param connectionFactory the configured connection factory name, empty for the default
 * @param destination the configured destination name
 * @param deliveryMode {@link DeliveryMode#PERSISTENT} or {@link DeliveryMode#NON_PERSISTENT}
 * @param priority 0 to 9
 * @param timeToLiveMillis 0 for "never expires"
 */
record JmsSettings(
    Optional<String> connectionFactory,
    String destination,
    int deliveryMode,
    int priority,
    long timeToLiveMillis) {

  /** {@code outbox.<name>.jms.connection-factory}. */
  static final Setting<String> CONNECTION_FACTORY_SETTING = Setting.jndiName(CONNECTION_FACTORY)
      .withDefault("java:comp/DefaultJMSConnectionFactory")
      .meaning("JNDI name of the `ConnectionFactory` (the default is the platform's); in Java SE and Quarkus the"
          + " `@Named` or `@Identifier` name of a CDI bean (unset: the `@Default` `ConnectionFactory` bean)");
  /** {@code outbox.<name>.jms.destination}. */
  static final Setting<String> DESTINATION_SETTING = Setting.jndiName(DESTINATION).required()
      .meaning("JNDI name of the queue or topic; in Java SE and Quarkus the `@Named` or `@Identifier` name of a CDI"
          + " bean of type `Destination` (a `Queue` or `Topic` producer qualifies)");
  /** {@code outbox.<name>.jms.delivery-mode}. */
  static final Setting<Integer> DELIVERY_MODE_SETTING = Setting.oneOf(DELIVERY_MODE, "delivery mode",
          deliveryModes())
      .withDefault(DeliveryMode.PERSISTENT)
      .meaning("`persistent`: messages survive a broker restart; `non-persistent`: they may not");
  /** {@code outbox.<name>.jms.priority}. */
  static final Setting<Integer> PRIORITY_SETTING = Setting.integer(PRIORITY, 0, 9).withDefault(4)
      .meaning("JMS priority, `0` (lowest) to `9` (highest)");
  /** {@code outbox.<name>.jms.time-to-live}; far beyond any sensible expiry, and safely inside long milliseconds. */
  static final Setting<Duration> TIME_TO_LIVE_SETTING =
      Setting.duration(TIME_TO_LIVE, Duration.ZERO, Duration.ofDays(365L * 1000)).withDefault(Duration.ZERO)
          .meaning("how long the broker keeps an unconsumed message before it may drop it; `0`: never expires");

  /** Every {@code outbox.<name>.jms.*} key: any other is refused, naming the nearest known one. */
  static final SettingsDeclaration DECLARATION = SettingsDeclaration.of(NAME + " relay", "outbox-jms-relay",
          "outbox." + ConfigKeyNames.NAME + "." + NAME + ".", CONNECTION_FACTORY_SETTING, DESTINATION_SETTING,
          DELIVERY_MODE_SETTING, PRIORITY_SETTING, TIME_TO_LIVE_SETTING)
      .appliesWhen("outbox." + ConfigKeyNames.NAME + ".relay=" + NAME);

  /**
   * Reads and validates the provider's keys, reporting every problem at once: unknown keys (with
   * the nearest known one), a missing destination, and values out of range.
   *
   * @throws OutboxConfigurationException naming the key and the value of the first bad setting,
   *     with every further one suppressed in it
   */
  static JmsSettings from(RelayContext context) {
    SettingsReader reader = context.settings(DECLARATION);
    Optional<String> connectionFactory = reader.optional(CONNECTION_FACTORY_SETTING);
    String destination = reader.get(DESTINATION_SETTING);
    int deliveryMode = reader.get(DELIVERY_MODE_SETTING);
    int priority = reader.get(PRIORITY_SETTING);
    Duration timeToLive = reader.get(TIME_TO_LIVE_SETTING);
    reader.throwIfAny();
    return new JmsSettings(connectionFactory, destination, deliveryMode, priority, timeToLive.toMillis());
  }

  /** @return the connection factory's JNDI name when {@code connection-factory} is not set */
  static String defaultConnectionFactory() {
    return CONNECTION_FACTORY_SETTING.defaultValue().orElseThrow();
  }

  private static Map<String, Integer> deliveryModes() {
    Map<String, Integer> modes = new LinkedHashMap<>();
    modes.put("persistent", DeliveryMode.PERSISTENT);
    modes.put("non-persistent", DeliveryMode.NON_PERSISTENT);
    return modes;
  }
}
