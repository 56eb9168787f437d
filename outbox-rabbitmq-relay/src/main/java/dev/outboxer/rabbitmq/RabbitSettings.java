package dev.outboxer.rabbitmq;

import static dev.outboxer.rabbitmq.RabbitRelayProvider.CONFIRM_TIMEOUT;
import static dev.outboxer.rabbitmq.RabbitRelayProvider.CONNECTION_NAME;
import static dev.outboxer.rabbitmq.RabbitRelayProvider.CONNECTION_TIMEOUT;
import static dev.outboxer.rabbitmq.RabbitRelayProvider.EXCHANGE;
import static dev.outboxer.rabbitmq.RabbitRelayProvider.HOST;
import static dev.outboxer.rabbitmq.RabbitRelayProvider.MANDATORY;
import static dev.outboxer.rabbitmq.RabbitRelayProvider.MAX_MESSAGE_SIZE;
import static dev.outboxer.rabbitmq.RabbitRelayProvider.NAME;
import static dev.outboxer.rabbitmq.RabbitRelayProvider.PASSWORD;
import static dev.outboxer.rabbitmq.RabbitRelayProvider.PERSISTENT;
import static dev.outboxer.rabbitmq.RabbitRelayProvider.PORT;
import static dev.outboxer.rabbitmq.RabbitRelayProvider.ROUTING_KEY;
import static dev.outboxer.rabbitmq.RabbitRelayProvider.USERNAME;
import static dev.outboxer.rabbitmq.RabbitRelayProvider.VIRTUAL_HOST;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.Ordering;
import dev.outboxer.spi.ConfigKeyNames;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.spi.Setting;
import dev.outboxer.spi.SettingsDeclaration;
import dev.outboxer.spi.SettingsReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * The validated {@code outbox.<name>.rabbitmq.*} settings of one outbox: where to connect and as
 * whom, where to publish, and the timeouts. Every key is declared here once, with its type, range,
 * default and meaning (listed for the reference by {@link RabbitSettingsCatalog}), and read with
 * the SPI's {@link SettingsReader}, which reports every problem at once; the rules between keys
 * are checked here and reported through the same reader. The guide (docs/guides/rabbitmq.md)
 * lists the same rules; keep the two in step.
 */
final class RabbitSettings {

  /** AMQP 0-9-1 short strings (exchange, routing key, type, header names) hold at most 255 bytes. */
  static final int MAX_SHORT_STRING_BYTES = 255;

  /** The shortest relay timeout the relay accepts: a connection and one round of confirms must fit. */
  static final Duration MIN_RELAY_TIMEOUT = Duration.ofSeconds(1);

  /** RabbitMQ 3.10's default {@code max_message_size}: 128 MiB. */
  static final long DEFAULT_MAX_MESSAGE_SIZE = 128L * 1024 * 1024;

  /** RabbitMQ refuses a {@code max_message_size} above 512 MiB. */
  static final long MAX_MAX_MESSAGE_SIZE = 512L * 1024 * 1024;

  private static final Duration MAX_TIMEOUT = Duration.ofHours(1);

  static final Setting<String> HOST_SETTING = Setting.text(HOST).withDefault("localhost")
      .meaning("the broker's host name or address");
  static final Setting<Integer> PORT_SETTING = Setting.integer(PORT, 1, 65535).withDefault(5672)
      .meaning("the broker's AMQP port (plain AMQP 0-9-1; TLS is not supported yet)");
  static final Setting<String> VIRTUAL_HOST_SETTING = Setting.text(VIRTUAL_HOST).withDefault("/")
      .meaning("the virtual host the exchange lives in");
  static final Setting<String> USERNAME_SETTING = Setting.text(USERNAME).withDefault("guest")
      .meaning("the user the relay connects as (RabbitMQ lets `guest` connect from localhost only)");
  static final Setting<String> PASSWORD_SETTING = Setting.text(PASSWORD).secret().withDefault("guest")
      .meaning("the user's password; never written to a message or log");
  static final Setting<String> EXCHANGE_SETTING = Setting.text(EXCHANGE).required()
      .checkedBy(RabbitSettings::shortStringProblem)
      .meaning("the exchange every message is published to; it must exist (the relay declares nothing)");
  static final Setting<String> ROUTING_KEY_SETTING = Setting.text(ROUTING_KEY)
      .checkedBy(RabbitSettings::shortStringProblem)
      .withDefault(null, "the group key; a message without one: its id")
      .meaning("a fixed routing key for every message. Unset, the group key is the routing key (a key longer"
          + " than 255 bytes: `sha256-` and its hex SHA-256), for a consistent-hash exchange");
  static final Setting<Boolean> MANDATORY_SETTING = Setting.bool(MANDATORY).withDefault(true)
      .meaning("publish with the mandatory flag: a message no queue is bound for comes back and fails its"
          + " record. `false`: RabbitMQ drops it silently and the record counts as delivered");
  static final Setting<Boolean> PERSISTENT_SETTING = Setting.bool(PERSISTENT).withDefault(true)
      .meaning("delivery mode 2: messages in durable queues survive a broker restart; `false`: mode 1");
  static final Setting<Long> MAX_MESSAGE_SIZE_SETTING = Setting.size(MAX_MESSAGE_SIZE, 1, MAX_MAX_MESSAGE_SIZE)
      .withDefault(DEFAULT_MAX_MESSAGE_SIZE)
      .meaning("the largest payload sent, as the broker's `max_message_size` (128 MiB by default); `publish`"
          + " refuses a larger one. Lower it to the broker's if the broker's is lower");
  static final Setting<Duration> CONFIRM_TIMEOUT_SETTING = Setting.duration(CONFIRM_TIMEOUT, MAX_TIMEOUT)
      .withDefault(null, "3/4 of relay-timeout")
      .meaning("how long the relay waits for the broker's confirms of the records it sent (also each channel"
          + " operation); must be shorter than `outbox.<name>.relay-timeout`");
  static final Setting<Duration> CONNECTION_TIMEOUT_SETTING = Setting.duration(CONNECTION_TIMEOUT, MAX_TIMEOUT)
      .withDefault(null, "5s, at most confirm-timeout")
      .meaning("opening the connection (TCP and AMQP handshake); at most `confirm-timeout`");
  static final Setting<String> CONNECTION_NAME_SETTING = Setting.text(CONNECTION_NAME)
      .withDefault(null, "outboxer-<name>")
      .meaning("the connection's name, shown by the management UI and `rabbitmqctl list_connections`");

  /** Every {@code outbox.<name>.rabbitmq.*} key: any other is refused, naming the nearest known one. */
  static final SettingsDeclaration DECLARATION = SettingsDeclaration.of(NAME + " relay", "outbox-rabbitmq-relay",
          "outbox." + ConfigKeyNames.NAME + "." + NAME + ".", HOST_SETTING, PORT_SETTING, VIRTUAL_HOST_SETTING,
          USERNAME_SETTING, PASSWORD_SETTING, EXCHANGE_SETTING, ROUTING_KEY_SETTING, MANDATORY_SETTING,
          PERSISTENT_SETTING, MAX_MESSAGE_SIZE_SETTING, CONFIRM_TIMEOUT_SETTING, CONNECTION_TIMEOUT_SETTING,
          CONNECTION_NAME_SETTING)
      .appliesWhen("outbox." + ConfigKeyNames.NAME + ".relay=" + NAME);

  private static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(5);

  private final RelayContext context;
  private final SettingsReader reader;
  private final String host;
  private final int port;
  private final String virtualHost;
  private final String username;
  private final String password;
  private final String exchange;
  private final Optional<String> routingKey;
  private final boolean mandatory;
  private final boolean persistent;
  private final long maxMessageSize;
  private final Duration confirmTimeout;
  private final Duration connectionTimeout;
  private final String connectionName;

  private RabbitSettings(RelayContext context) {
    this.context = context;
    this.reader = context.settings(DECLARATION);
    this.host = reader.get(HOST_SETTING);
    this.port = reader.get(PORT_SETTING);
    this.virtualHost = reader.get(VIRTUAL_HOST_SETTING);
    this.username = reader.get(USERNAME_SETTING);
    this.password = reader.get(PASSWORD_SETTING);
    this.exchange = reader.get(EXCHANGE_SETTING);
    this.routingKey = reader.optional(ROUTING_KEY_SETTING);
    this.mandatory = reader.get(MANDATORY_SETTING);
    this.persistent = reader.get(PERSISTENT_SETTING);
    this.maxMessageSize = reader.get(MAX_MESSAGE_SIZE_SETTING);
    this.connectionName = reader.optional(CONNECTION_NAME_SETTING).orElse("outboxer-" + context.outbox());
    Duration relayTimeout = context.relayTimeout();
    String relayTimeoutKey = "outbox." + context.outbox() + ".relay-timeout";
    if (relayTimeout.compareTo(MIN_RELAY_TIMEOUT) < 0) {
      reader.problem(new OutboxConfigurationException(relayTimeoutKey, relayTimeoutKey + "="
          + Setting.formatDuration(relayTimeout) + " is too short for the rabbitmq relay of outbox '"
          + context.outbox() + "': it needs at least " + Setting.formatDuration(MIN_RELAY_TIMEOUT)
          + " to connect and wait for the broker's confirms; raise it"));
    }
    // A confirm that arrives after the batch deadline is ignored and its record sent again: the
    // relay must stop waiting before the deadline to report what it knows.
    this.confirmTimeout = reader.optional(CONFIRM_TIMEOUT_SETTING)
        .orElse(relayTimeout.multipliedBy(3).dividedBy(4));
    if (confirmTimeout.compareTo(relayTimeout) >= 0) {
      reader.problem(CONFIRM_TIMEOUT_SETTING, "must be shorter than " + relayTimeoutKey + " ("
          + Setting.formatDuration(relayTimeout) + "): confirms still awaited at the batch deadline count as"
          + " failed and their records are sent again; remove it (default 3/4 of the relay timeout) or raise the"
          + " relay timeout");
    }
    this.connectionTimeout = reader.optional(CONNECTION_TIMEOUT_SETTING)
        .orElse(DEFAULT_CONNECTION_TIMEOUT.compareTo(confirmTimeout) < 0 ? DEFAULT_CONNECTION_TIMEOUT
            : confirmTimeout);
    if (connectionTimeout.compareTo(confirmTimeout) > 0) {
      reader.problem(CONNECTION_TIMEOUT_SETTING, "is longer than the confirm timeout ("
          + Setting.formatDuration(confirmTimeout) + "), which bounds every wait of a batch; remove it (default "
          + Setting.formatDuration(DEFAULT_CONNECTION_TIMEOUT) + ") or shorten it");
    }
    reader.throwIfAny();
  }

  /**
   * Reads and validates every key.
   *
   * @throws OutboxConfigurationException the first problem, every other one suppressed
   */
  static RabbitSettings from(RelayContext context) {
    return new RabbitSettings(context);
  }

  private static Optional<String> shortStringProblem(String value) {
    int bytes = value.getBytes(StandardCharsets.UTF_8).length;
    return bytes <= MAX_SHORT_STRING_BYTES ? Optional.empty()
        : Optional.of("is " + bytes + " bytes long in UTF-8; AMQP allows at most " + MAX_SHORT_STRING_BYTES
            + "; shorten it");
  }

  String outbox() {
    return context.outbox();
  }

  Ordering ordering() {
    return context.ordering();
  }

  String host() {
    return host;
  }

  int port() {
    return port;
  }

  String virtualHost() {
    return virtualHost;
  }

  String username() {
    return username;
  }

  String password() {
    return password;
  }

  String exchange() {
    return exchange;
  }

  /** The fixed routing key; empty when the group key routes. */
  Optional<String> routingKey() {
    return routingKey;
  }

  boolean mandatory() {
    return mandatory;
  }

  boolean persistent() {
    return persistent;
  }

  long maxMessageSize() {
    return maxMessageSize;
  }

  Duration confirmTimeout() {
    return confirmTimeout;
  }

  Duration connectionTimeout() {
    return connectionTimeout;
  }

  String connectionName() {
    return connectionName;
  }

  String fullKey(String key) {
    return reader.fullKey(key);
  }

  /** Where the relay connects, for messages: {@code amqp://guest@localhost:5672/ (outbox.orders.rabbitmq.host...)}. */
  String describeBroker() {
    return "RabbitMQ at amqp://" + username + "@" + host + ":" + port + "/"
        + (virtualHost.equals("/") ? "" : virtualHost) + " (" + fullKey(HOST) + ", " + fullKey(PORT) + ")";
  }

  /** The exchange, for messages: {@code exchange 'orders' (outbox.orders.rabbitmq.exchange)}. */
  String describeExchange() {
    return "exchange '" + exchange + "' (" + fullKey(EXCHANGE) + ") in virtual host '" + virtualHost + "'";
  }
}
