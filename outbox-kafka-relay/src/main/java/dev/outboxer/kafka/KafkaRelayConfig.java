package dev.outboxer.kafka;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.kafka.KafkaSettings.Fencing;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.spi.Setting;
import dev.outboxer.spi.SettingsReader;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The checked configuration of one outbox's Kafka relay: the topic, the fencing mode and the
 * producer properties, read with a {@link SettingsReader} of {@link KafkaSettings}, with the
 * relay's safe defaults applied and the overrides that would break ordering or delivery refused.
 * Every problem goes to the reader, which reports them all at once. Every rule is listed in the
 * Kafka guide (Kafka: configuration); keep the two in step.
 */
final class KafkaRelayConfig {

  /** The provider name, also the key prefix {@code outbox.<name>.kafka.}. */
  static final String PROVIDER = "kafka";

  /** The shortest relay timeout the Kafka relay accepts: below it no retry fits. */
  static final Duration MIN_RELAY_TIMEOUT = Duration.ofSeconds(1);

  /** Kafka's own default request timeout, kept when the relay timeout leaves room for it. */
  static final long DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

  /** Kafka's own default max.block.ms, the cap of the derived metadata wait. */
  static final long DEFAULT_MAX_BLOCK_MS = 60_000;

  /** Kafka's default linger.ms (5 since Kafka 4.0); the relay flushes, so it costs no latency. */
  static final long DEFAULT_LINGER_MS = 5;

  /** Idempotence keeps order per partition with up to 5 requests in flight (KAFKA-5494). */
  static final int MAX_IN_FLIGHT_LIMIT = 5;

  /** The smallest payload limit the relay accepts from max.request.size. */
  static final long MIN_PAYLOAD_BYTES = 1024;

  /** The brokers' default transaction.max.timeout.ms (15 min): a longer timeout is refused. */
  static final long MAX_DEFAULT_TRANSACTION_TIMEOUT_MS = 900_000;

  private static final ConfigDef PRODUCER_CONFIG = ProducerConfig.configDef();

  private final RelayContext context;
  private final SettingsReader reader;
  private final String topic;
  private final Fencing fencing;
  private final String transactionalIdPrefix;
  private final Map<String, Object> producerProperties;
  private Duration deliveryTimeout = Duration.ZERO;

  private KafkaRelayConfig(RelayContext context) {
    this.context = context;
    // Keys set as environment variables (OUTBOX_<NAME>_KAFKA_BOOTSTRAP_SERVERS) are found by the keys they stand for.
    this.reader = context.settings(KafkaSettings.DECLARATION);
    this.topic = reader.get(KafkaSettings.TOPIC);
    this.fencing = reader.get(KafkaSettings.FENCING);
    this.transactionalIdPrefix = reader.optional(KafkaSettings.TRANSACTIONAL_ID_PREFIX)
        .orElse("outboxer-" + context.outbox());
    Map<String, Object> properties = new HashMap<>(reader.passedThrough());
    properties.values().removeIf(value -> value == null || value.toString().isBlank());
    reader.optional(KafkaSettings.BOOTSTRAP_SERVERS)
        .ifPresent(servers -> properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, servers));
    checkKafkaValues(properties);
    checkRelayTimeout();
    rejectUnsafe(properties);
    applyDefaults(properties);
    this.producerProperties = Map.copyOf(properties);
    checkRecordRoom();
  }

  /**
   * @param context the outbox's relay context
   * @return the configuration
   * @throws OutboxConfigurationException naming the key and the value of the first problem, every
   *     further problem suppressed in it
   */
  static KafkaRelayConfig from(RelayContext context) {
    KafkaRelayConfig config = new KafkaRelayConfig(context);
    config.reader.throwIfAny();
    return config;
  }

  String outbox() {
    return context.outbox();
  }

  String topic() {
    return topic;
  }

  Fencing fencing() {
    return fencing;
  }

  /** The {@code transactional.id} of the producer of an outbox partition. */
  String transactionalId(int partition) {
    return transactionalIdPrefix + "-" + partition;
  }

  /** The properties handed to {@code new KafkaProducer<>(...)}; unmodifiable. */
  Map<String, Object> producerProperties() {
    return producerProperties;
  }

  /** How long the producer may take to report the outcome of one record. */
  Duration deliveryTimeout() {
    return deliveryTimeout;
  }

  /** The producer's {@code max.request.size}: no record may be larger, headers and key included. */
  long maxRequestSize() {
    return Math.min(longProperty(ProducerConfig.MAX_REQUEST_SIZE_CONFIG),
        longProperty(ProducerConfig.BUFFER_MEMORY_CONFIG));
  }

  /** The full key of the setting that makes {@link #maxRequestSize()}, for messages. */
  String maxRequestSizeKey() {
    String key = longProperty(ProducerConfig.BUFFER_MEMORY_CONFIG)
        < longProperty(ProducerConfig.MAX_REQUEST_SIZE_CONFIG)
        ? ProducerConfig.BUFFER_MEMORY_CONFIG : ProducerConfig.MAX_REQUEST_SIZE_CONFIG;
    return fullKey(key);
  }

  /** @return the full key of a key under {@code outbox.<name>.kafka.}, for messages */
  String fullKey(String key) {
    return reader.fullKey(key);
  }

  /** @return the full key of one of the relay's settings, for messages */
  String fullKey(Setting<?> setting) {
    return reader.fullKey(setting.key());
  }

  /** A record must leave room for a payload beside the headers and key the relay reserves. */
  private void checkRecordRoom() {
    String key = ProducerConfig.MAX_REQUEST_SIZE_CONFIG;
    if (hasProblem(key) || hasProblem(ProducerConfig.BUFFER_MEMORY_CONFIG)) {
      return;
    }
    long least = KafkaConstraints.RESERVED_BYTES + MIN_PAYLOAD_BYTES;
    if (maxRequestSize() < least) {
      invalid(key, maxRequestSize(), "leaves too little room: the relay keeps "
          + KafkaConstraints.RESERVED_BYTES + " bytes of each record for headers and key, and "
          + "payloads need at least " + MIN_PAYLOAD_BYTES + " more (buffer.memory counts too)",
          "raise it to at least " + least + " or remove it (Kafka's default is 1048576)");
    }
  }

  private long longProperty(String key) {
    Object value = producerProperties.get(key);
    Object parsed = value == null ? PRODUCER_CONFIG.configKeys().get(key).defaultValue
        : ConfigDef.parseType(key, value, PRODUCER_CONFIG.configKeys().get(key).type);
    return ((Number) parsed).longValue();
  }

  /** Values Kafka's own parser refuses. Unknown keys were refused by the reader. */
  private void checkKafkaValues(Map<String, Object> properties) {
    for (Map.Entry<String, Object> property : new TreeMap<>(properties).entrySet()) {
      String key = property.getKey();
      ConfigDef.ConfigKey definition = PRODUCER_CONFIG.configKeys().get(key);
      try {
        Object parsed = ConfigDef.parseType(key, property.getValue(), definition.type);
        if (definition.validator != null) {
          definition.validator.ensureValid(key, parsed);
        }
      } catch (ConfigException e) {
        boolean password = definition.type == ConfigDef.Type.PASSWORD;
        invalid(key, property.getValue(), "is refused by the Kafka producer"
            + (password ? "" : " (" + e.getMessage() + ")"), "fix or remove it");
      }
    }
  }

  private void checkRelayTimeout() {
    if (context.relayTimeout().compareTo(MIN_RELAY_TIMEOUT) < 0) {
      String key = "outbox." + context.outbox() + ".relay-timeout";
      reader.problem(new OutboxConfigurationException(key, key + "="
          + Setting.formatDuration(context.relayTimeout()) + " is too short for the kafka relay: it needs at least "
          + Setting.formatDuration(MIN_RELAY_TIMEOUT) + " to let the producer retry within a batch; raise it ("
          + reader.where() + ")"));
    }
  }

  private void rejectUnsafe(Map<String, Object> properties) {
    for (String key : List.of(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG)) {
      if (properties.containsKey(key)) {
        invalid(key, properties.get(key), "is set by the kafka relay itself (String keys, byte[] "
            + "values)", "remove it");
      }
    }
    if (properties.containsKey(ProducerConfig.TRANSACTIONAL_ID_CONFIG)) {
      invalid(ProducerConfig.TRANSACTIONAL_ID_CONFIG,
          properties.get(ProducerConfig.TRANSACTIONAL_ID_CONFIG), "is set by the kafka relay "
              + "itself, one per outbox partition", "remove it; to choose the ids, set "
              + fullKey(KafkaSettings.TRANSACTIONAL_ID_PREFIX) + " (with " + fullKey(KafkaSettings.FENCING)
              + "=transactional, the default)");
    }
    text(properties, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG)
        .filter(value -> !value.equals("true"))
        .ifPresent(value -> invalid(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, value, "must be "
            + "true: without idempotence a retried request can be written twice or overtake an "
            + "earlier one, which breaks the per-key order", "remove it (the relay enables "
            + "idempotence)"));
    text(properties, ProducerConfig.ACKS_CONFIG)
        .filter(value -> !value.equals("all") && !value.equals("-1"))
        .ifPresent(value -> invalid(ProducerConfig.ACKS_CONFIG, value, "must be all (or -1): with "
            + "fewer acknowledgements a confirmed record can be lost when a leader fails, after "
            + "its outbox row was deleted", "remove it (the relay sets acks=all)"));
    number(properties, ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION)
        .filter(value -> value < 1 || value > MAX_IN_FLIGHT_LIMIT)
        .ifPresent(value -> invalid(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, value,
            "must be between 1 and " + MAX_IN_FLIGHT_LIMIT + ": the idempotent producer keeps the "
                + "order within a partition only up to " + MAX_IN_FLIGHT_LIMIT
                + " requests in flight", "remove it (default " + MAX_IN_FLIGHT_LIMIT + ")"));
    number(properties, ProducerConfig.RETRIES_CONFIG)
        .filter(value -> value < 1)
        .ifPresent(value -> invalid(ProducerConfig.RETRIES_CONFIG, value, "must be at least 1: the "
            + "idempotent producer needs retries, and the delivery timeout bounds them anyway",
            "remove it (Kafka's default retries until delivery.timeout.ms)"));
    text(properties, ProducerConfig.PARTITIONER_IGNORE_KEYS_CONFIG)
        .filter(value -> value.equals("true"))
        .ifPresent(value -> invalid(ProducerConfig.PARTITIONER_IGNORE_KEYS_CONFIG, value, "must be "
            + "false: records of one group key must go to one partition to stay in order",
            "remove it"));
  }

  private void applyDefaults(Map<String, Object> properties) {
    long relayTimeoutMs = context.relayTimeout().toMillis();
    properties.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    properties.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
        ByteArraySerializer.class.getName());
    properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    properties.put(ProducerConfig.ACKS_CONFIG, "all");
    properties.putIfAbsent(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION,
        String.valueOf(MAX_IN_FLIGHT_LIMIT));
    properties.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "outboxer-" + context.outbox());

    // The producer must give up on a record before the worker gives up on the batch: an outcome
    // that arrives after the deadline is ignored, and the record is sent again (a duplicate).
    long deliveryMs = number(properties, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG)
        .orElse(Math.min(Integer.MAX_VALUE, relayTimeoutMs * 3 / 4));
    if (deliveryMs >= relayTimeoutMs) {
      invalid(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, deliveryMs, "must be shorter than "
          + "outbox." + context.outbox() + ".relay-timeout (" + relayTimeoutMs + " ms): a record "
          + "still retrying at the batch deadline counts as failed and is sent again",
          "remove it (default 3/4 of the relay timeout) or raise the relay timeout");
    }
    long lingerMs = number(properties, ProducerConfig.LINGER_MS_CONFIG).orElse(DEFAULT_LINGER_MS);
    long requestMs = number(properties, ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG)
        .orElse(Math.min(DEFAULT_REQUEST_TIMEOUT_MS, deliveryMs / 2));
    if (deliveryMs < lingerMs + requestMs && !hasProblem(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG)) {
      invalid(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, deliveryMs, "must be at least "
          + "linger.ms + request.timeout.ms (" + lingerMs + " + " + requestMs + " ms), as Kafka "
          + "requires", "lower " + fullKey(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG)
          + " or raise the relay timeout");
    }
    // Metadata waits (an unknown topic) block send() for max.block.ms, and commitTransaction waits
    // as long at most: keep them well inside the batch.
    long maxBlockMs = number(properties, ProducerConfig.MAX_BLOCK_MS_CONFIG)
        .orElse(Math.min(DEFAULT_MAX_BLOCK_MS, relayTimeoutMs / 4));
    if (maxBlockMs >= relayTimeoutMs) {
      invalid(ProducerConfig.MAX_BLOCK_MS_CONFIG, maxBlockMs, "must be shorter than "
          + "outbox." + context.outbox() + ".relay-timeout (" + relayTimeoutMs + " ms): a send "
          + "blocked on metadata would outlast the batch", "remove it (default 1/4 of the relay "
          + "timeout, at most 60 s)");
    }
    // delivery.timeout.ms and request.timeout.ms are INT configs in Kafka: a Long is refused.
    properties.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, toInt(deliveryMs));
    properties.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, toInt(requestMs));
    properties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, maxBlockMs);
    deliveryTimeout = Duration.ofMillis(deliveryMs);
    if (fencing == Fencing.TRANSACTIONAL) {
      // The coordinator aborts a transaction that stays open longer: no batch may, so a stale
      // node's transaction is aborted soon even if no other node takes the partition over.
      properties.putIfAbsent(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
          toInt(Math.min(MAX_DEFAULT_TRANSACTION_TIMEOUT_MS, relayTimeoutMs)));
    }
  }

  private static int toInt(long millis) {
    return (int) Math.min(Integer.MAX_VALUE, millis);
  }

  /** Whether a problem was already reported for the key (later rules then skip it). */
  private boolean hasProblem(String key) {
    String fullKey = fullKey(key);
    return reader.problems().stream().anyMatch(problem -> fullKey.equals(problem.key()));
  }

  private Optional<String> text(Map<String, Object> properties, String key) {
    if (hasProblem(key)) {
      return Optional.empty();
    }
    return Optional.ofNullable(properties.get(key))
        .map(value -> value.toString().trim().toLowerCase(Locale.ROOT));
  }

  private Optional<Long> number(Map<String, Object> properties, String key) {
    return text(properties, key).flatMap(value -> {
      try {
        return Optional.of(Long.parseLong(value));
      } catch (NumberFormatException e) {
        invalid(key, value, "is not a whole number", "set a number of "
            + (key.endsWith(".ms") ? "milliseconds" : "units") + " or remove it");
        return Optional.empty();
      }
    });
  }

  /**
   * Reports a producer property's value through the reader: {@code <key>=<value> <rule>; <fix>
   * (kafka relay of outbox '<name>')}. A configured value is shown as configured (a password
   * hidden); a derived one ({@code delivery.timeout.ms} from the relay timeout) as derived.
   */
  private void invalid(String key, Object value, String rule, String fix) {
    ConfigDef.ConfigKey definition = PRODUCER_CONFIG.configKeys().get(key);
    boolean secret = definition != null && definition.type == ConfigDef.Type.PASSWORD;
    String reason = rule + "; " + fix;
    if (reader.passedThrough().containsKey(key)) {
      reader.passedThroughProblem(key, secret, reason);
    } else {
      reader.problem(new OutboxConfigurationException(fullKey(key), fullKey(key) + "="
          + (secret ? "(hidden)" : value) + " " + reason + " (" + reader.where() + ")"));
    }
  }
}
