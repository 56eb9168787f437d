package dev.outboxer.kafka;

import dev.outboxer.spi.ConfigKeyNames;
import dev.outboxer.spi.Setting;
import dev.outboxer.spi.SettingsCatalog;
import dev.outboxer.spi.SettingsDeclaration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The Kafka relay's configuration keys, {@code outbox.<name>.kafka.*}, declared once: its own keys
 * ({@code topic}, {@code fencing}, {@code transactional-id-prefix}), {@code bootstrap.servers},
 * which it requires, and every other Kafka producer property ({@code ProducerConfig}), passed
 * through to the producer. Listed for the configuration reference through {@link
 * java.util.ServiceLoader} ({@code META-INF/services/dev.outboxer.spi.SettingsCatalog}).
 *
 * <p>What it guarantees: the relay reads exactly these keys, with a {@link
 * dev.outboxer.spi.SettingsReader} of {@link #declarations()}, so any other key is refused naming
 * the nearest known one. What it does not describe: the relay's rules on the producer properties
 * it passes through (it refuses overrides that would break order or lose confirmed records, and
 * derives the timeouts from {@code outbox.<name>.relay-timeout}); the Kafka guide lists them.
 */
public final class KafkaSettings implements SettingsCatalog {

  /** How the relay keeps a node that lost its claim from writing after the next owner. */
  enum Fencing {
    /** A transactional producer per outbox partition: the broker fences a stale node's producer. */
    TRANSACTIONAL,
    /** One idempotent producer; only the relay's own claim checks stop a stale node. */
    NONE;

    String configValue() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  // Kafka's legal topic names: at most 249 of ASCII letters, digits, '.', '_' and '-'.
  private static final Pattern TOPIC_NAME = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

  /** {@code outbox.<name>.kafka.topic}: the destination topic; required. */
  static final Setting<String> TOPIC = Setting.text("topic").required()
      .range("1 to 249 of a-z, A-Z, 0-9, '.', '_' and '-'")
      .checkedBy(topic -> TOPIC_NAME.matcher(topic).matches() && !topic.equals(".") && !topic.equals("..")
          ? Optional.empty()
          : Optional.of("is not a legal Kafka topic name (1 to 249 of a-z, A-Z, 0-9, '.', '_' and '-'): set it to"
              + " the name of an existing topic"))
      .meaning("the topic to send to; it must exist unless the brokers auto-create topics");

  /** {@code outbox.<name>.kafka.fencing}: {@code transactional} (default) or {@code none}. */
  static final Setting<Fencing> FENCING = Setting.oneOf("fencing", "fencing mode", fencingModes())
      .withDefault(Fencing.TRANSACTIONAL)
      .meaning("`transactional`: a Kafka transaction per batch of a producer per outbox partition, so that the"
          + " broker fences a stale node (consumers read with `isolation.level=read_committed`); `none`: one"
          + " idempotent producer without transactions (see the fencing section of the Kafka guide for what is"
          + " lost)");

  /**
   * {@code outbox.<name>.kafka.transactional-id-prefix}: the producers' {@code transactional.id}
   * is this plus {@code -<partition>}; default {@code outboxer-<outbox>}.
   */
  static final Setting<String> TRANSACTIONAL_ID_PREFIX = Setting.text("transactional-id-prefix")
      .withDefault(null, "outboxer-<name>")
      .meaning("`transactional.id` of outbox partition p's producer is `<prefix>-<p>`; the same on every node of the"
          + " application, different for applications sharing a cluster and an outbox name");

  /** {@code outbox.<name>.kafka.bootstrap.servers}: the brokers; required, handed to the producer. */
  static final Setting<String> BOOTSTRAP_SERVERS = Setting.text(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG).required()
      .meaning("the brokers to connect to, for example host1:9092,host2:9092");

  /** Every key under {@code outbox.<name>.kafka.}. */
  static final SettingsDeclaration DECLARATION = SettingsDeclaration.of("kafka relay", "outbox-kafka-relay",
          "outbox." + ConfigKeyNames.NAME + ".kafka.", TOPIC, FENCING, TRANSACTIONAL_ID_PREFIX, BOOTSTRAP_SERVERS)
      .appliesWhen("outbox." + ConfigKeyNames.NAME + ".relay=kafka")
      .passingThrough("any Kafka producer property (ProducerConfig)", ProducerConfig.configNames());

  /** For {@link java.util.ServiceLoader}: the catalog of the Kafka relay's keys. */
  public KafkaSettings() {}

  /** @return the declaration of {@code outbox.<name>.kafka.*} */
  @Override
  public List<SettingsDeclaration> declarations() {
    return List.of(DECLARATION);
  }

  private static Map<String, Fencing> fencingModes() {
    Map<String, Fencing> modes = new LinkedHashMap<>();
    for (Fencing mode : Fencing.values()) {
      modes.put(mode.configValue(), mode);
    }
    return modes;
  }
}
