package dev.outboxer.cdi.internal.config;

import static dev.outboxer.cdi.internal.config.ConfigKeys.*;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.Ordering;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads and validates the whole configuration, collecting every problem rather than stopping at
 * the first, so that one failed deployment shows them all. Each problem names the key and the
 * value.
 */
public final class OutboxConfigReader {

  private static final Pattern RELAY_KEY = Pattern.compile("outbox\\.([^.]+)\\.relay");
  private static final Set<String> RESERVED_NAMES = Set.of("worker", "database", "metrics", "node-id");
  private static final Set<String> OUTBOX_KEYS =
      Set.of(RELAY, ORDERING, PARTITIONS, MAX_ATTEMPTS, BACKOFF_MIN, BACKOFF_MAX, SERIALIZE_WRITES,
          BATCH_SIZE, POLL_INTERVAL, MAX_POLL_INTERVAL, RELAY_TIMEOUT);

  private final Function<String, Optional<String>> lookup;
  private final Iterable<String> propertyNames;
  private final List<OutboxConfigurationException> problems = new ArrayList<>();

  /**
   * @param lookup the value of a key, empty when not set (or set to an empty string)
   * @param propertyNames every key the configuration knows, to find outboxes and misspelt keys
   */
  public OutboxConfigReader(Function<String, Optional<String>> lookup, Iterable<String> propertyNames) {
    this.lookup = lookup;
    this.propertyNames = propertyNames;
  }

  /** The outcome: the configuration if there were no problems, and the problems. */
  public record Result(OutboxConfiguration configuration, List<OutboxConfigurationException> problems) {
    public boolean valid() {
      return problems.isEmpty();
    }

    /** @throws OutboxConfigurationException the first problem, with the others suppressed */
    public OutboxConfiguration orThrow() {
      if (!problems.isEmpty()) {
        OutboxConfigurationException first = problems.get(0);
        problems.stream().skip(1).forEach(first::addSuppressed);
        throw first;
      }
      return configuration;
    }
  }

  public Result read() {
    Set<String> keys = new TreeSet<>();
    propertyNames.forEach(keys::add);

    Map<String, OutboxSettings> outboxes = new HashMap<>();
    for (String key : keys) {
      Matcher relayKey = RELAY_KEY.matcher(key);
      if (relayKey.matches() && lookup.apply(key).isPresent()) {
        String name = relayKey.group(1);
        if (!name.matches(OUTBOX_NAME_PATTERN) || RESERVED_NAMES.contains(name)) {
          problem(key, key + " declares an outbox named '" + name + "', which is not allowed: an outbox name is 1 to 100 "
              + "letters, digits, '_' or '-', and not one of " + new TreeSet<>(RESERVED_NAMES));
          continue;
        }
        readOutbox(name, keys).ifPresent(settings -> outboxes.put(name, settings));
      }
    }
    checkUnknownOutboxKeys(keys, outboxes);

    WorkerMode mode =
        lookup.apply(WORKER)
            .map(value -> WorkerMode.fromConfig(value).orElseGet(() -> {
              problem(WORKER, WORKER + "=" + value + " is not a worker mode: use executor, ejb-timer or none");
              return WorkerMode.EXECUTOR;
            }))
            .orElse(WorkerMode.EXECUTOR);
    int threads = positiveInt(WORKER_THREADS, 0, 1, 256);
    Optional<String> database = lookup.apply(DATABASE).map(value -> value.trim().toLowerCase(Locale.ROOT));
    database.ifPresent(value -> {
      if (!Set.of("postgresql", "mariadb", "h2", "derby").contains(value)) {
        problem(DATABASE, DATABASE + "=" + value + " is not a supported database: use postgresql, mariadb, h2 or derby, "
            + "or remove the key to detect it");
      }
    });
    Duration metricsRefresh = positiveDuration(METRICS_REFRESH, DEFAULT_METRICS_REFRESH);
    String nodeId = lookup.apply(NODE_ID).orElseGet(() -> ManagementFactory.getRuntimeMXBean().getName());

    OutboxConfiguration configuration =
        new OutboxConfiguration(outboxes, mode, lookup.apply(WORKER_EXECUTOR), threads, database, metricsRefresh, nodeId);
    return new Result(configuration, List.copyOf(problems));
  }

  private Optional<OutboxSettings> readOutbox(String name, Set<String> keys) {
    int before = problems.size();
    String relay = lookup.apply(ConfigKeys.key(name, RELAY)).orElseThrow().trim();

    String orderingKey = ConfigKeys.key(name, ORDERING);
    String orderingValue = lookup.apply(orderingKey).orElse(DEFAULT_ORDERING).trim();
    Ordering ordering = null;
    for (Ordering candidate : Ordering.values()) {
      if (candidate.configValue().equalsIgnoreCase(orderingValue)) {
        ordering = candidate;
      }
    }
    if (ordering == null) {
      problem(orderingKey, orderingKey + "=" + orderingValue + " is not an ordering mode: use group, total or none");
      ordering = Ordering.GROUP;
    }

    String partitionsKey = ConfigKeys.key(name, PARTITIONS);
    int partitions = positiveInt(partitionsKey, DEFAULT_PARTITIONS, 1, 1024);
    if (ordering == Ordering.TOTAL && partitions != 1) {
      problem(partitionsKey, partitionsKey + "=" + partitions + " contradicts " + orderingKey
          + "=total, which keeps one global order with exactly one partition: remove the key or set it to 1");
    }

    String attemptsKey = ConfigKeys.key(name, MAX_ATTEMPTS);
    String attemptsValue = lookup.apply(attemptsKey).orElse(INFINITY).trim();
    long maxAttempts = OutboxSettings.UNLIMITED_ATTEMPTS;
    if (!attemptsValue.equalsIgnoreCase(INFINITY)) {
      try {
        maxAttempts = Long.parseLong(attemptsValue);
        if (maxAttempts < 1) {
          problem(attemptsKey, attemptsKey + "=" + attemptsValue + " must be at least 1, or 'infinity' to retry forever");
        }
      } catch (NumberFormatException e) {
        problem(attemptsKey, attemptsKey + "=" + attemptsValue + " is not a number: use a positive number, or 'infinity' to retry forever");
      }
    }

    Duration backoffMin = positiveDuration(ConfigKeys.key(name, BACKOFF_MIN), DEFAULT_BACKOFF_MIN);
    Duration backoffMax = positiveDuration(ConfigKeys.key(name, BACKOFF_MAX), DEFAULT_BACKOFF_MAX);
    if (backoffMin.compareTo(backoffMax) > 0) {
      String minKey = ConfigKeys.key(name, BACKOFF_MIN);
      problem(minKey, minKey + "=" + Durations.format(backoffMin) + " is greater than " + ConfigKeys.key(name, BACKOFF_MAX)
          + "=" + Durations.format(backoffMax) + ": the first retry delay cannot exceed the longest one");
    }

    String serializeKey = ConfigKeys.key(name, SERIALIZE_WRITES);
    String serializeValue = lookup.apply(serializeKey).orElse("false").trim();
    if (!serializeValue.equalsIgnoreCase("true") && !serializeValue.equalsIgnoreCase("false")) {
      problem(serializeKey, serializeKey + "=" + serializeValue + " is not a boolean: use true or false");
    }

    int batchSize = positiveInt(ConfigKeys.key(name, BATCH_SIZE), DEFAULT_BATCH_SIZE, 1, MAX_BATCH_SIZE);
    Duration pollInterval = positiveDuration(ConfigKeys.key(name, POLL_INTERVAL), DEFAULT_POLL_INTERVAL);
    String maxPollKey = ConfigKeys.key(name, MAX_POLL_INTERVAL);
    Duration maxPollInterval =
        positiveDuration(maxPollKey, DEFAULT_MAX_POLL_INTERVAL.compareTo(pollInterval) < 0 ? pollInterval : DEFAULT_MAX_POLL_INTERVAL);
    if (maxPollInterval.compareTo(pollInterval) < 0) {
      problem(maxPollKey, maxPollKey + "=" + Durations.format(maxPollInterval) + " is shorter than "
          + ConfigKeys.key(name, POLL_INTERVAL) + "=" + Durations.format(pollInterval)
          + ": idle polling slows down from poll-interval to max-poll-interval");
    }
    Duration relayTimeout = positiveDuration(ConfigKeys.key(name, RELAY_TIMEOUT), DEFAULT_RELAY_TIMEOUT);

    String relayPrefix = ConfigKeys.key(name, relay + ".");
    Map<String, String> relayProperties = new HashMap<>();
    for (String key : keys) {
      if (key.startsWith(relayPrefix) && key.length() > relayPrefix.length()) {
        lookup.apply(key).ifPresent(value -> relayProperties.put(key.substring(relayPrefix.length()), value));
      }
    }

    if (problems.size() > before) {
      return Optional.empty();
    }
    return Optional.of(new OutboxSettings(name, relay, ordering, partitions, maxAttempts, backoffMin, backoffMax,
        Boolean.parseBoolean(serializeValue), batchSize, pollInterval, maxPollInterval, relayTimeout, relayProperties));
  }

  /** A misspelt key would otherwise be silently ignored and its default used. */
  private void checkUnknownOutboxKeys(Set<String> keys, Map<String, OutboxSettings> outboxes) {
    Set<String> globalKeys = Set.of(WORKER, WORKER_EXECUTOR, WORKER_THREADS, DATABASE, METRICS_REFRESH, NODE_ID);
    for (String key : keys) {
      if (!key.startsWith(PREFIX) || globalKeys.contains(key) || lookup.apply(key).isEmpty()
          || RELAY_KEY.matcher(key).matches()) {
        continue;
      }
      String rest = key.substring(PREFIX.length());
      int dot = rest.indexOf('.');
      String outbox = dot < 0 ? rest : rest.substring(0, dot);
      String outboxKey = dot < 0 ? "" : rest.substring(dot + 1);
      OutboxSettings settings = outboxes.get(outbox);
      if (settings == null) {
        if (!keys.contains(ConfigKeys.key(outbox, RELAY)) && !RESERVED_NAMES.contains(outbox)) {
          problem(key, key + " is set but no outbox '" + outbox + "' exists: an outbox exists when "
              + ConfigKeys.key(outbox, RELAY) + " is set (jms, kafka or the @Named name of a Relay bean)");
        } else if (RESERVED_NAMES.contains(outbox)) {
          problem(key, key + " is not a key Outboxer knows; global keys are " + new TreeSet<>(globalKeys));
        }
        continue;
      }
      if (!OUTBOX_KEYS.contains(outboxKey) && !outboxKey.startsWith(settings.relay() + ".")) {
        problem(key, key + " is not a key Outboxer knows: the keys of an outbox are " + new TreeSet<>(OUTBOX_KEYS)
            + ", and its relay's own keys start with " + ConfigKeys.key(outbox, settings.relay() + "."));
      }
    }
  }

  private int positiveInt(String key, int defaultValue, int min, int max) {
    Optional<String> value = lookup.apply(key);
    if (value.isEmpty()) {
      return defaultValue;
    }
    try {
      int parsed = Integer.parseInt(value.get().trim());
      if (parsed < min || parsed > max) {
        problem(key, key + "=" + value.get() + " is out of range: use a number from " + min + " to " + max);
        return defaultValue;
      }
      return parsed;
    } catch (NumberFormatException e) {
      problem(key, key + "=" + value.get() + " is not a number: use a whole number from " + min + " to " + max);
      return defaultValue;
    }
  }

  private Duration positiveDuration(String key, Duration defaultValue) {
    Optional<String> value = lookup.apply(key);
    if (value.isEmpty()) {
      return defaultValue;
    }
    try {
      Duration parsed = Durations.parse(value.get());
      if (parsed.isNegative() || parsed.isZero()) {
        problem(key, key + "=" + value.get() + " must be longer than zero");
        return defaultValue;
      }
      return parsed;
    } catch (IllegalArgumentException e) {
      problem(key, key + "=" + value.get() + " is not a duration: " + e.getMessage());
      return defaultValue;
    }
  }

  private void problem(String key, String message) {
    problems.add(new OutboxConfigurationException(key, message));
  }
}
