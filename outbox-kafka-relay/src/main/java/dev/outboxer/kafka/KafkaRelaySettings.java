package dev.outboxer.kafka;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.spi.RelayContext;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The validated settings of one outbox's Kafka relay: the topic and the producer properties, with
 * the relay's safe defaults applied and the overrides that would break ordering or delivery
 * rejected. Every rule is listed in the README (Kafka: configuration); keep the two in step.
 */
final class KafkaRelaySettings {

  /** The provider name, also the key prefix {@code outbox.<name>.kafka.}. */
  static final String PROVIDER = "kafka";

  /** {@code outbox.<name>.kafka.topic}: the destination topic; required. */
  static final String TOPIC = "topic";

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

  // Kafka's legal topic names: at most 249 of ASCII letters, digits, '.', '_' and '-'.
  private static final Pattern TOPIC_NAME = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

  // Set by the relay itself: the record mapping produces String keys and byte[] values, and a
  // transactional producer would refuse the relay's plain sends.
  private static final Set<String> RESERVED =
      Set.of(
          ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
          ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
          ProducerConfig.TRANSACTIONAL_ID_CONFIG);

  private final RelayContext context;
  private final String topic;
  private final Map<String, Object> producerProperties;
  private final Duration deliveryTimeout;

  private KafkaRelaySettings(RelayContext context) {
    this.context = context;
    this.topic = validTopic();
    Map<String, Object> properties = new HashMap<>(context.properties());
    properties.remove(TOPIC);
    properties.values().removeIf(value -> value == null || value.toString().isBlank());
    checkRequired(properties);
    rejectUnsafe(properties);
    applyDefaults(properties);
    this.deliveryTimeout = Duration.ofMillis(
        ((Number) properties.get(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG)).longValue());
    this.producerProperties = Map.copyOf(properties);
  }

  /**
   * @param context the outbox's relay context
   * @return the settings
   * @throws OutboxConfigurationException naming the key and the value if a setting is missing or
   *     unsafe
   */
  static KafkaRelaySettings from(RelayContext context) {
    return new KafkaRelaySettings(context);
  }

  String outbox() {
    return context.outbox();
  }

  String topic() {
    return topic;
  }

  /** The properties handed to {@code new KafkaProducer<>(...)}; unmodifiable. */
  Map<String, Object> producerProperties() {
    return producerProperties;
  }

  /** How long the producer may take to report the outcome of one record. */
  Duration deliveryTimeout() {
    return deliveryTimeout;
  }

  String fullKey(String key) {
    return context.fullKey(PROVIDER, key);
  }

  private String validTopic() {
    String value = context.requiredProperty(PROVIDER, TOPIC).trim();
    if (!TOPIC_NAME.matcher(value).matches() || value.equals(".") || value.equals("..")) {
      throw invalid(TOPIC, value, "is not a legal Kafka topic name (1 to 249 of a-z, A-Z, 0-9, "
          + "'.', '_' and '-')", "set it to the name of an existing topic");
    }
    return value;
  }

  private void checkRequired(Map<String, Object> properties) {
    if (!properties.containsKey(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG)) {
      String key = fullKey(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG);
      throw new OutboxConfigurationException(key, key + " is not set: the kafka relay of outbox '"
          + context.outbox() + "' needs the brokers to connect to, for example "
          + "host1:9092,host2:9092");
    }
    if (context.relayTimeout().compareTo(MIN_RELAY_TIMEOUT) < 0) {
      String key = "outbox." + context.outbox() + ".relay-timeout";
      throw new OutboxConfigurationException(key, key + "=" + context.relayTimeout()
          + " is too short for the kafka relay: it needs at least " + MIN_RELAY_TIMEOUT
          + " to let the producer retry within a batch; raise it");
    }
  }

  private void rejectUnsafe(Map<String, Object> properties) {
    for (String key : RESERVED) {
      if (properties.containsKey(key)) {
        throw invalid(key, properties.get(key), "is set by the kafka relay itself (String keys, "
            + "byte[] values, no producer transactions)", "remove it");
      }
    }
    text(properties, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG)
        .filter(value -> !value.equalsIgnoreCase("true"))
        .ifPresent(value -> {
          throw invalid(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, value, "must be true: without "
              + "idempotence a retried request can be written twice or overtake an earlier one, "
              + "which breaks the per-key order", "remove it (the relay enables idempotence)");
        });
    text(properties, ProducerConfig.ACKS_CONFIG)
        .filter(value -> !value.equalsIgnoreCase("all") && !value.equals("-1"))
        .ifPresent(value -> {
          throw invalid(ProducerConfig.ACKS_CONFIG, value, "must be all (or -1): with fewer "
              + "acknowledgements a confirmed record can be lost when a leader fails, after its "
              + "outbox row was deleted", "remove it (the relay sets acks=all)");
        });
    number(properties, ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION)
        .filter(value -> value < 1 || value > MAX_IN_FLIGHT_LIMIT)
        .ifPresent(value -> {
          throw invalid(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, value, "must be "
              + "between 1 and " + MAX_IN_FLIGHT_LIMIT + ": the idempotent producer keeps the "
              + "order within a partition only up to " + MAX_IN_FLIGHT_LIMIT
              + " requests in flight",
              "remove it (default " + MAX_IN_FLIGHT_LIMIT + ")");
        });
    number(properties, ProducerConfig.RETRIES_CONFIG)
        .filter(value -> value < 1)
        .ifPresent(value -> {
          throw invalid(ProducerConfig.RETRIES_CONFIG, value, "must be at least 1: the idempotent "
              + "producer needs retries, and the delivery timeout bounds them anyway",
              "remove it (Kafka's default retries until delivery.timeout.ms)");
        });
    text(properties, ProducerConfig.PARTITIONER_IGNORE_KEYS_CONFIG)
        .filter(value -> value.equalsIgnoreCase("true"))
        .ifPresent(value -> {
          throw invalid(ProducerConfig.PARTITIONER_IGNORE_KEYS_CONFIG, value, "must be false: "
              + "records of one group key must go to one partition to stay in order", "remove it");
        });
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
      throw invalid(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, deliveryMs, "must be shorter than "
          + "outbox." + context.outbox() + ".relay-timeout (" + relayTimeoutMs + " ms): a record "
          + "still retrying at the batch deadline counts as failed and is sent again",
          "remove it (default 3/4 of the relay timeout) or raise the relay timeout");
    }
    long lingerMs = number(properties, ProducerConfig.LINGER_MS_CONFIG).orElse(DEFAULT_LINGER_MS);
    long requestMs = number(properties, ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG)
        .orElse(Math.min(DEFAULT_REQUEST_TIMEOUT_MS, deliveryMs / 2));
    if (deliveryMs < lingerMs + requestMs) {
      throw invalid(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, deliveryMs, "must be at least "
          + "linger.ms + request.timeout.ms (" + lingerMs + " + " + requestMs + " ms), as Kafka "
          + "requires", "lower " + fullKey(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG)
          + " or raise the relay timeout");
    }
    // Metadata waits (an unknown topic) block send() for max.block.ms: keep them well inside the
    // batch; the relay gives up on the batch at the first such timeout.
    long maxBlockMs = number(properties, ProducerConfig.MAX_BLOCK_MS_CONFIG)
        .orElse(Math.min(DEFAULT_MAX_BLOCK_MS, relayTimeoutMs / 4));
    if (maxBlockMs >= relayTimeoutMs) {
      throw invalid(ProducerConfig.MAX_BLOCK_MS_CONFIG, maxBlockMs, "must be shorter than "
          + "outbox." + context.outbox() + ".relay-timeout (" + relayTimeoutMs + " ms): a send "
          + "blocked on metadata would outlast the batch", "remove it (default 1/4 of the relay "
          + "timeout, at most 60 s)");
    }
    // delivery.timeout.ms and request.timeout.ms are INT configs in Kafka: a Long is refused.
    properties.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, toInt(deliveryMs));
    properties.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, toInt(requestMs));
    properties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, maxBlockMs);
  }

  private static int toInt(long millis) {
    return (int) Math.min(Integer.MAX_VALUE, millis);
  }

  private Optional<String> text(Map<String, Object> properties, String key) {
    return Optional.ofNullable(properties.get(key))
        .map(value -> value.toString().trim().toLowerCase(Locale.ROOT));
  }

  private Optional<Long> number(Map<String, Object> properties, String key) {
    return text(properties, key).map(value -> {
      try {
        return Long.parseLong(value);
      } catch (NumberFormatException e) {
        throw invalid(key, value, "is not a whole number", "set a number of "
            + (key.endsWith(".ms") ? "milliseconds" : "units") + " or remove it");
      }
    });
  }

  private OutboxConfigurationException invalid(String key, Object value, String rule, String fix) {
    String fullKey = fullKey(key);
    return new OutboxConfigurationException(fullKey, fullKey + "=" + value + " " + rule
        + " (kafka relay of outbox '" + context.outbox() + "'); " + fix + ".");
  }
}
