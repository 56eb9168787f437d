package dev.outboxer.sqs;

import static dev.outboxer.sqs.SqsRelayProvider.NAME;
import static dev.outboxer.sqs.SqsRelayProvider.SECRET_ACCESS_KEY;
import static dev.outboxer.sqs.SqsRelayProvider.SESSION_TOKEN;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.spi.ConfigDurations;
import dev.outboxer.spi.ConfigKeyNames;
import dev.outboxer.spi.RelayContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads the {@code outbox.<name>.sqs.*} values of one outbox and collects every problem, so that
 * they are all reported at once: the first as the exception, the others suppressed. Each problem
 * reads {@code <full key>=<value> <rule> (sqs relay of outbox '<name>'); <fix>.}
 */
final class SettingsReader {


  private final RelayContext context;
  private final List<OutboxConfigurationException> problems = new ArrayList<>();

  SettingsReader(RelayContext context) {
    this.context = context;
  }

  RelayContext context() {
    return context;
  }

  String fullKey(String key) {
    return context.fullKey(NAME, key);
  }

  /** The value, stripped, if set and not blank. */
  Optional<String> text(String key) {
    return context.property(key).map(String::strip);
  }

  /** Records a problem with a key; secrets are never shown, whatever the caller passes. */
  void problem(String key, String value, String rule, String fix) {
    String fullKey = fullKey(key);
    boolean secret = key.equals(SECRET_ACCESS_KEY) || key.equals(SESSION_TOKEN);
    String shown = secret && !value.startsWith("(") ? "(hidden)" : value;
    problems.add(new OutboxConfigurationException(fullKey, fullKey + "=" + shown + " " + rule
        + " (sqs relay of outbox '" + context.outbox() + "'); " + fix + "."));
  }

  /** Records a problem that is not about one of the relay's keys. */
  void problem(OutboxConfigurationException problem) {
    problems.add(problem);
  }

  /**
   * Records every key that is not one of {@code known}, as written (an environment variable by its
   * name), naming the nearest known key if one is near enough.
   */
  void checkKnownKeys(Set<String> known) {
    List<String> fullKeys = known.stream().map(this::fullKey).toList();
    for (String key : new TreeSet<>(context.properties().keySet())) {
      if (!known.contains(key)) {
        String written = context.writtenKey(NAME, key);
        problems.add(new OutboxConfigurationException(fullKey(key), written + " is not a setting of"
            + " the sqs relay of outbox '" + context.outbox() + "'."
            + ConfigKeyNames.didYouMean(written, fullKeys) + " Known keys under outbox."
            + context.outbox() + ".sqs.: " + new TreeSet<>(known)));
      }
    }
  }

  int integer(String key, int defaultValue, int min, int max, String rule) {
    Optional<String> value = text(key);
    if (value.isEmpty()) {
      return defaultValue;
    }
    try {
      int number = Integer.parseInt(value.get());
      if (number >= min && number <= max) {
        return number;
      }
    } catch (NumberFormatException e) {
      // reported below, with the rule
    }
    problem(key, value.get(), "is not a whole number from " + min + " to " + max + " (" + rule
        + ")", "remove it (default " + defaultValue + ") or fix it");
    return defaultValue;
  }

  Duration duration(String key, Duration defaultValue) {
    Optional<String> value = text(key);
    if (value.isEmpty()) {
      return defaultValue;
    }
    Duration parsed = parseDuration(value.get());
    if (parsed == null || parsed.isNegative() || parsed.isZero()) {
      problem(key, value.get(), "is not a positive duration", "write it as 500ms, 30s, 2m or"
          + " ISO-8601 PT30S, or remove it (default " + defaultValue.toMillis() + "ms)");
      return defaultValue;
    }
    return parsed;
  }

  /** Throws the first problem, with every other one suppressed; does nothing without problems. */
  void throwIfAny() {
    if (!problems.isEmpty()) {
      OutboxConfigurationException first = problems.get(0);
      problems.subList(1, problems.size()).forEach(first::addSuppressed);
      throw first;
    }
  }

  /**
   * {@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 1d} or ISO-8601, parsed as every module
   * parses durations ({@link ConfigDurations}); else null.
   */
  static Duration parseDuration(String text) {
    try {
      return ConfigDurations.parse(text);
    } catch (IllegalArgumentException notADuration) {
      return null;
    }
  }
}
