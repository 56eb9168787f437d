package dev.outboxer.jms;

import static dev.outboxer.jms.JmsRelayProvider.CONNECTION_FACTORY;
import static dev.outboxer.jms.JmsRelayProvider.DEFAULT_DELIVERY_MODE;
import static dev.outboxer.jms.JmsRelayProvider.DEFAULT_PRIORITY;
import static dev.outboxer.jms.JmsRelayProvider.DEFAULT_TIME_TO_LIVE;
import static dev.outboxer.jms.JmsRelayProvider.DELIVERY_MODE;
import static dev.outboxer.jms.JmsRelayProvider.DESTINATION;
import static dev.outboxer.jms.JmsRelayProvider.NAME;
import static dev.outboxer.jms.JmsRelayProvider.PRIORITY;
import static dev.outboxer.jms.JmsRelayProvider.TIME_TO_LIVE;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.spi.ConfigDurations;
import dev.outboxer.spi.ConfigKeyNames;
import dev.outboxer.spi.RelayContext;
import jakarta.jms.DeliveryMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * The validated {@code outbox.<name>.jms.*} settings of one outbox.
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

  private static final Set<String> KEYS =
      Set.of(CONNECTION_FACTORY, DESTINATION, DELIVERY_MODE, PRIORITY, TIME_TO_LIVE);

  /** Far beyond any sensible expiry, and safely inside {@code long} milliseconds. */
  private static final Duration MAX_TIME_TO_LIVE = Duration.ofDays(365L * 1000);


  /**
   * Reads and validates the provider's keys, reporting every problem at once.
   *
   * @throws OutboxConfigurationException naming the key and the value of the first bad setting,
   *     with every further one suppressed in it
   */
  static JmsSettings from(RelayContext configured) {
    // Keys set as environment variables (OUTBOX_<NAME>_JMS_DELIVERY_MODE) renamed to the keys they stand for.
    RelayContext context = configured.withKeys(KEYS);
    List<OutboxConfigurationException> problems = new ArrayList<>();
    List<String> fullKeys = KEYS.stream().map(known -> context.fullKey(NAME, known)).toList();
    for (String key : new TreeSet<>(context.properties().keySet())) {
      if (!KEYS.contains(key)) {
        String written = context.writtenKey(NAME, key);
        problems.add(new OutboxConfigurationException(
            context.fullKey(NAME, key),
            written + " is not a setting of the jms relay (a typo?)."
                + ConfigKeyNames.didYouMean(written, fullKeys)
                + " Known keys: " + new TreeSet<>(KEYS) + " under outbox." + context.outbox()
                + ".jms."));
      }
    }
    Optional<String> destination = context.property(DESTINATION).map(String::strip);
    if (destination.isEmpty()) {
      try {
        context.requiredProperty(NAME, DESTINATION);
      } catch (OutboxConfigurationException missing) {
        problems.add(missing);
      }
    }
    int deliveryMode = collect(problems, () -> deliveryMode(context), DeliveryMode.PERSISTENT);
    int priority = collect(problems, () -> priority(context), DEFAULT_PRIORITY);
    long timeToLive = collect(problems, () -> timeToLive(context), 0L);
    if (!problems.isEmpty()) {
      OutboxConfigurationException first = problems.get(0);
      problems.subList(1, problems.size()).forEach(first::addSuppressed);
      throw first;
    }
    return new JmsSettings(
        context.property(CONNECTION_FACTORY).map(String::strip),
        destination.get(),
        deliveryMode,
        priority,
        timeToLive);
  }

  private static <T> T collect(
      List<OutboxConfigurationException> problems, Supplier<T> read, T placeholder) {
    try {
      return read.get();
    } catch (OutboxConfigurationException problem) {
      problems.add(problem);
      return placeholder;
    }
  }

  private static int deliveryMode(RelayContext context) {
    String value = context.property(DELIVERY_MODE).orElse(DEFAULT_DELIVERY_MODE).strip();
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "persistent" -> DeliveryMode.PERSISTENT;
      case "non-persistent" -> DeliveryMode.NON_PERSISTENT;
      default -> throw invalid(context, DELIVERY_MODE, value, "persistent or non-persistent");
    };
  }

  private static int priority(RelayContext context) {
    String value = context.property(PRIORITY).orElse(String.valueOf(DEFAULT_PRIORITY)).strip();
    try {
      int priority = Integer.parseInt(value);
      if (priority >= 0 && priority <= 9) {
        return priority;
      }
    } catch (NumberFormatException e) {
      // reported below, with the rule
    }
    throw invalid(context, PRIORITY, value, "a whole number from 0 (lowest) to 9 (highest)");
  }

  private static long timeToLive(RelayContext context) {
    String value = context.property(TIME_TO_LIVE).orElse(DEFAULT_TIME_TO_LIVE).strip();
    Duration duration = parseDuration(value);
    if (duration != null && !duration.isNegative() && duration.compareTo(MAX_TIME_TO_LIVE) <= 0) {
      return duration.toMillis();
    }
    throw invalid(
        context,
        TIME_TO_LIVE,
        value,
        "0 (never expires) or a positive duration with a unit, such as 500ms, 30s, 10m, 2h, 1d"
            + " or ISO-8601 PT30S");
  }

  /**
   * Returns {@code null} if the text is not a duration. {@code 0} is the time-to-live's own word for
   * "never expires" (JMS's 0); anything else is parsed as every module parses durations.
   */
  private static Duration parseDuration(String text) {
    if (text.equals("0")) {
      return Duration.ZERO;
    }
    try {
      return ConfigDurations.parse(text);
    } catch (IllegalArgumentException notADuration) {
      return null;
    }
  }

  private static OutboxConfigurationException invalid(
      RelayContext context, String key, String value, String rule) {
    String fullKey = context.fullKey(NAME, key);
    return new OutboxConfigurationException(
        fullKey, fullKey + "=" + value + " is not valid: expected " + rule + ".");
  }
}
