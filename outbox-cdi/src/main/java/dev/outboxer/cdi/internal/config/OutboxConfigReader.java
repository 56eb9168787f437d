package dev.outboxer.cdi.internal.config;

import static dev.outboxer.cdi.internal.config.ConfigKeys.*;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.Ordering;
import dev.outboxer.spi.ConfigKeyNames;
import dev.outboxer.spi.RelayContext;
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
  private static final Set<String> RESERVED_NAMES = Set.of("worker", "database", "metrics", "node-id", "schema",
      "datasource", "health", "admin", "inbox", "telemetry", "wake-up");
  /**
   * Key spaces of optional modules, which check their own keys at deployment: {@code
   * outbox.<space>.*} and {@code outbox.<name>.<space>.*} (outbox-health: {@code health},
   * outbox-admin: {@code admin}, outbox-inbox: {@code inbox}).
   */
  private static final Set<String> MODULE_KEY_SPACES = Set.of("health", "admin", "inbox", "telemetry");
  private static final Set<String> OUTBOX_KEYS =
      Set.of(RELAY, ORDERING, PARTITIONS, MAX_ATTEMPTS, BACKOFF_MIN, BACKOFF_MAX, SERIALIZE_WRITES,
          BATCH_SIZE, POLL_INTERVAL, MAX_POLL_INTERVAL, RELAY_TIMEOUT, TRANSACTION_TIMEOUT, MAX_PAYLOAD_SIZE);
  private static final Set<String> GLOBAL_KEYS =
      Set.of(WORKER, WORKER_EXECUTOR, WORKER_THREADS, DATABASE, METRICS_REFRESH, NODE_ID, SCHEMA, DATASOURCE,
          WAKE_UP);
  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(b|kb|kib|mb|mib|gb|gib)?");

  private final Function<String, Optional<String>> lookup;
  private final Iterable<String> propertyNames;
  private final Set<String> relayProviders;
  private final List<OutboxConfigurationException> problems = new ArrayList<>();
  private final List<RelayCheck> relayChecks = new ArrayList<>();
  private ConfigKeyNames.Resolved names;

  /**
   * @param lookup the value of a key, empty when not set (or set to an empty string)
   * @param propertyNames every key the configuration knows, to find outboxes and misspelt keys
   */
  public OutboxConfigReader(Function<String, Optional<String>> lookup, Iterable<String> propertyNames) {
    this(lookup, propertyNames, Set.of());
  }

  /**
   * @param relayProviders the names of the relay modules present ({@code jms}, {@code kafka}...): keys of
   *     another module than an outbox's relay are reported against the relay name, not as unknown keys
   */
  public OutboxConfigReader(Function<String, Optional<String>> lookup, Iterable<String> propertyNames,
      Set<String> relayProviders) {
    this.lookup = lookup;
    this.propertyNames = propertyNames;
    this.relayProviders = relayProviders;
  }

  /**
   * An outbox's relay as configured, for the relay's own checks: also for an outbox whose other keys
   * have problems (with the defaults in place of the bad values), so that one failed deployment
   * reports the relay's problems too.
   *
   * @param relayKey {@code outbox.<name>.relay}
   * @param relay its value, the relay's name
   * @param context what the relay provider's {@code validate} is given
   */
  public record RelayCheck(String relayKey, String relay, RelayContext context) {}

  /**
   * The outcome: the configuration if there were no problems, the problems, and the relay of every
   * outbox with a usable relay name.
   */
  public record Result(OutboxConfiguration configuration, List<OutboxConfigurationException> problems,
      List<RelayCheck> relayChecks) {
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
    Set<String> reported = new TreeSet<>();
    propertyNames.forEach(reported::add);
    // Environment variables are reported by their own names: map every name to the key it stands for. The
    // relays' keys are known by their prefix, outbox.<name>.<relay>.*: the providers', then each outbox's own.
    Set<String> relayNames = new TreeSet<>(relayProviders);
    names = ConfigKeyNames.resolve(reported, keyPatterns(relayNames));
    for (String key : names.keys()) {
      if (RELAY_KEY.matcher(key).matches()) {
        lookup.apply(key).map(String::trim).filter(relay -> relay.matches(OUTBOX_NAME_PATTERN)).ifPresent(relayNames::add);
      }
    }
    if (!relayNames.equals(relayProviders)) {
      names = ConfigKeyNames.resolve(reported, keyPatterns(relayNames));
    }
    Set<String> keys = new TreeSet<>(names.keys());

    Map<String, OutboxSettings> outboxes = new HashMap<>();
    for (String key : keys) {
      Matcher relayKey = RELAY_KEY.matcher(key);
      boolean blank = lookup.apply(key).map(String::isBlank).orElse(true);
      if (relayKey.matches() && blank && !RESERVED_NAMES.contains(relayKey.group(1))) {
        // Set but empty: MicroProfile Config calls that "not set", which would silently drop the outbox; only
        // spaces would name a relay "" that nothing provides.
        problem(key, key + " is blank, so outbox '" + relayKey.group(1) + "' has no relay: set it to jms, kafka, or"
            + " the @Named name of a dev.outboxer.spi.Relay bean (or remove every outbox." + relayKey.group(1)
            + ".* key if the outbox is not wanted)");
        continue;
      }
      if (relayKey.matches() && !blank) {
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
    checkUnmatchedEnvironmentNames(keys);

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
      if (!Set.of("postgresql", "mariadb", "h2", "sqlite").contains(value)) {
        problem(DATABASE, DATABASE + "=" + value + " is not a supported database: use postgresql, mariadb, h2 or sqlite,"
            + " or remove the key to detect it" + ("derby".equals(value) ? " (Derby is no longer supported)" : ""));
      }
    });
    Duration metricsRefresh = positiveDuration(METRICS_REFRESH, DEFAULT_METRICS_REFRESH);
    String nodeId = text(NODE_ID, "the JVM's name, " + ManagementFactory.getRuntimeMXBean().getName())
        .orElseGet(() -> ManagementFactory.getRuntimeMXBean().getName());
    if (nodeId.length() > 200) {
      problem(NODE_ID, NODE_ID + " is " + nodeId.length() + " characters long; the limit is 200");
    }
    SchemaMode schema = lookup.apply(SCHEMA)
        .map(value -> SchemaMode.fromConfig(value).orElseGet(() -> {
          problem(SCHEMA, SCHEMA + "=" + value + " is not a schema mode: use validate (the default: check the tables at"
              + " start-up), create (create them if missing: development and demos) or none");
          return SchemaMode.VALIDATE;
        }))
        .orElse(SchemaMode.VALIDATE);

    boolean notifyWakeUp = lookup.apply(WAKE_UP).map(value -> switch (value.trim().toLowerCase(Locale.ROOT)) {
      case "notify" -> true;
      case "poll" -> false;
      default -> {
        problem(WAKE_UP, WAKE_UP + "=" + value + " is not a wake-up mode: use notify (the default: on PostgreSQL, a"
            + " publish wakes the workers of every node at once through LISTEN/NOTIFY) or poll (other nodes find new"
            + " messages at their next poll)");
        yield true;
      }
    }).orElse(true);

    Optional<String> executor = text(WORKER_EXECUTOR, DEFAULT_WORKER_EXECUTOR);
    Optional<String> dataSource = text(DATASOURCE, "the data source behind the application's EntityManager");
    OutboxConfiguration configuration = new OutboxConfiguration(outboxes, mode, executor, threads,
        database, metricsRefresh, nodeId, schema, dataSource, notifyWakeUp);
    return new Result(configuration, List.copyOf(problems), List.copyOf(relayChecks));
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
        problem(attemptsKey, attemptsKey + "=" + attemptsValue + (isWholeNumber(attemptsValue)
            ? " is out of range: use a number from 1 to " + Long.MAX_VALUE : " is not a number: use a positive number")
            + ", or 'infinity' to retry forever");
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
    String relayTimeoutKey = ConfigKeys.key(name, RELAY_TIMEOUT);
    String transactionTimeoutKey = ConfigKeys.key(name, TRANSACTION_TIMEOUT);
    Duration relayTimeout = positiveDuration(relayTimeoutKey, DEFAULT_RELAY_TIMEOUT, MAX_RELAY_TIMEOUT,
        " (it must fit inside " + transactionTimeoutKey + ", at most " + Durations.format(MAX_TRANSACTION_TIMEOUT) + ")");
    Duration transactionTimeout = positiveDuration(transactionTimeoutKey, DEFAULT_TRANSACTION_TIMEOUT,
        MAX_TRANSACTION_TIMEOUT, " (a claim of a partition lasts that long at most when its worker stops; keep it"
            + " short)");
    // The relay timeout must end well inside the worker's transaction (the claim's lease): room for the database
    // work after the relay, and for the transaction manager's and the database's own timing.
    Duration headroom = transactionTimeout.dividedBy(4).compareTo(Duration.ofSeconds(1)) > 0
        ? transactionTimeout.dividedBy(4) : Duration.ofSeconds(1);
    if (relayTimeout.plus(headroom).compareTo(transactionTimeout) > 0) {
      problem(relayTimeoutKey, relayTimeoutKey + "=" + Durations.format(relayTimeout) + " does not fit inside "
          + transactionTimeoutKey + "=" + Durations.format(transactionTimeout) + ": a batch's transaction (and with it the"
          + " worker's claim of the partition) must outlast the relay by at least a quarter of it, and by 1s at least."
          + " Lower " + relayTimeoutKey + " to " + Durations.format(transactionTimeout.minus(headroom).isNegative()
          ? Duration.ZERO : transactionTimeout.minus(headroom)) + " or less, or raise " + transactionTimeoutKey + " to "
          + Durations.format(relayTimeout.multipliedBy(4).dividedBy(3).plusSeconds(1)) + " or more");
    }
    long maxPayloadSize = size(ConfigKeys.key(name, MAX_PAYLOAD_SIZE));

    String relayPrefix = ConfigKeys.key(name, relay + ".");
    Map<String, String> relayProperties = new HashMap<>();
    for (String key : keys) {
      if (key.startsWith(relayPrefix) && key.length() > relayPrefix.length()) {
        // A variable's key under the prefix keeps its spelling (CONNECTION_FACTORY): MicroProfile Config finds it by the
        // upper-cased name, and a variable written in lower case by its own name.
        lookup.apply(key).or(() -> lookup.apply(names.written(key)))
            .ifPresent(value -> relayProperties.put(key.substring(relayPrefix.length()), value));
      }
    }

    relayChecks.add(new RelayCheck(ConfigKeys.key(name, RELAY), relay,
        new RelayContext(name, ordering, partitions, relayTimeout, relayProperties)));
    if (problems.size() > before) {
      return Optional.empty();
    }
    return Optional.of(new OutboxSettings(name, relay, ordering, partitions, maxAttempts, backoffMin, backoffMax,
        Boolean.parseBoolean(serializeValue), batchSize, pollInterval, maxPollInterval, relayTimeout, transactionTimeout,
        maxPayloadSize, relayProperties));
  }

  /**
   * The keys this reader knows, as {@link ConfigKeyNames} patterns: the global keys, every outbox's keys, the keys
   * under each relay's prefix and the optional modules' key spaces (theirs to check).
   */
  private static List<String> keyPatterns(Set<String> relayNames) {
    List<String> patterns = new ArrayList<>(GLOBAL_KEYS);
    OUTBOX_KEYS.forEach(key -> patterns.add(ConfigKeys.key(ConfigKeyNames.NAME, key)));
    relayNames.forEach(relay -> patterns.add(ConfigKeys.key(ConfigKeyNames.NAME, relay + "." + ConfigKeyNames.ANY)));
    for (String space : MODULE_KEY_SPACES) {
      patterns.add(PREFIX + space + "." + ConfigKeyNames.ANY);
      patterns.add(ConfigKeys.key(ConfigKeyNames.NAME, space + "." + ConfigKeyNames.ANY));
    }
    return patterns;
  }

  /**
   * An environment variable that starts with OUTBOX_ but stands for no key: a misspelt key, named as written, when it
   * is near a known key or names a configured outbox. Any other (OUTBOX_SERVICE_HOST, which Kubernetes sets for a
   * service named outbox; a build's OUTBOX_TEST_...) is not taken for Outboxer's.
   */
  private void checkUnmatchedEnvironmentNames(Set<String> keys) {
    Set<String> known = new TreeSet<>(GLOBAL_KEYS);
    Set<String> outboxPrefixes = new TreeSet<>();
    for (String key : keys) {
      Matcher relayKey = RELAY_KEY.matcher(key);
      if (relayKey.matches()) {
        OUTBOX_KEYS.forEach(k -> known.add(ConfigKeys.key(relayKey.group(1), k)));
        outboxPrefixes.add(ConfigKeyNames.environmentName(ConfigKeys.key(relayKey.group(1), "")));
      }
    }
    for (String name : names.unmatched()) {
      String suggestion = ConfigKeyNames.didYouMean(name, known);
      String upper = name.toUpperCase(Locale.ROOT);
      if (lookup.apply(name).isEmpty()
          || suggestion.isEmpty() && outboxPrefixes.stream().noneMatch(upper::startsWith)) {
        continue;
      }
      problem(name, name + " is set but stands for no key Outboxer knows." + suggestion
          + " An environment variable stands for the key with every character other than a letter or digit replaced"
          + " by _, upper-cased: " + ConfigKeys.key("orders", MAX_ATTEMPTS) + " is "
          + ConfigKeyNames.environmentName(ConfigKeys.key("orders", MAX_ATTEMPTS)));
    }
  }

  /** A misspelt key would otherwise be silently ignored and its default used. */
  private void checkUnknownOutboxKeys(Set<String> keys, Map<String, OutboxSettings> outboxes) {
    Set<String> globalKeys = GLOBAL_KEYS;
    Set<String> variables = new TreeSet<>();
    for (String key : keys) {
      if (!key.startsWith(PREFIX) || globalKeys.contains(key) || lookup.apply(key).isEmpty()
          || RELAY_KEY.matcher(key).matches()) {
        continue;
      }
      if (!names.written(key).equals(key) && !variables.add(names.written(key))) {
        continue; // a variable's dotted twin beside its own key: one variable, checked once
      }
      String rest = key.substring(PREFIX.length());
      int dot = rest.indexOf('.');
      String outbox = dot < 0 ? rest : rest.substring(0, dot);
      String outboxKey = dot < 0 ? "" : rest.substring(dot + 1);
      int spaceDot = outboxKey.indexOf('.');
      if (MODULE_KEY_SPACES.contains(outbox)
          || spaceDot > 0 && MODULE_KEY_SPACES.contains(outboxKey.substring(0, spaceDot))) {
        continue;
      }
      OutboxSettings settings = outboxes.get(outbox);
      if (settings == null) {
        if (!keys.contains(ConfigKeys.key(outbox, RELAY)) && !RESERVED_NAMES.contains(outbox)) {
          problem(key, names.written(key) + " is set but no outbox '" + outbox + "' exists: an outbox exists when "
              + ConfigKeys.key(outbox, RELAY) + " is set (jms, kafka or the @Named name of a Relay bean)."
              + ConfigKeyNames.didYouMean(names.written(key), globalKeys));
        } else if (RESERVED_NAMES.contains(outbox)) {
          problem(key, names.written(key) + " is not a key Outboxer knows; global keys are " + new TreeSet<>(globalKeys)
              + "." + ConfigKeyNames.didYouMean(names.written(key), globalKeys));
        }
        continue;
      }
      int relayDot = outboxKey.indexOf('.');
      String keyRelay = relayDot < 0 ? "" : outboxKey.substring(0, relayDot);
      if (!keyRelay.equals(settings.relay()) && relayProviders.contains(keyRelay)) {
        if (relayProviders.contains(settings.relay())) {
          problem(key, names.written(key) + " is a setting of the " + keyRelay + " relay, but " + ConfigKeys.key(outbox, RELAY) + "="
              + settings.relay() + ": remove it, or set the relay to " + keyRelay);
        }
        // Otherwise the relay name itself is wrong (relay=jsm next to jms.* keys): that is the one error to report.
        continue;
      }
      if (!OUTBOX_KEYS.contains(outboxKey) && !outboxKey.startsWith(settings.relay() + ".")) {
        Set<String> known = new TreeSet<>();
        OUTBOX_KEYS.forEach(k -> known.add(ConfigKeys.key(outbox, k)));
        problem(key, names.written(key) + " is not a key Outboxer knows." + ConfigKeyNames.didYouMean(names.written(key),
            known) + " The keys of an"
            + " outbox are " + new TreeSet<>(OUTBOX_KEYS) + ", and its relay's own keys start with "
            + ConfigKeys.key(outbox, settings.relay() + "."));
      }
    }
  }

  /**
   * A name-like value, trimmed. Only spaces is a mistake (a placeholder that resolved to nothing, say):
   * reported, rather than used as a name that finds nothing or silently replaced by the default.
   */
  private Optional<String> text(String key, String defaultDescription) {
    Optional<String> value = lookup.apply(key);
    if (value.isPresent() && value.get().isBlank()) {
      problem(key, key + "=" + value.get() + " is blank: remove the key for the default (" + defaultDescription
          + ") or give it a value");
      return Optional.empty();
    }
    return value.map(String::trim);
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
      problem(key, key + "=" + value.get() + (isWholeNumber(value.get()) ? " is out of range: use a number from "
          : " is not a number: use a whole number from ") + min + " to " + max);
      return defaultValue;
    }
  }

  private Duration positiveDuration(String key, Duration defaultValue) {
    return positiveDuration(key, defaultValue, MAX_DURATION, "");
  }

  private Duration positiveDuration(String key, Duration defaultValue, Duration max, String why) {
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
      if (parsed.compareTo(max) > 0) {
        problem(key, key + "=" + value.get() + " is too long: the limit is " + Durations.format(max) + why);
        return defaultValue;
      }
      if (parsed.getNano() % 1_000_000 != 0) {
        // Every delay is used in whole milliseconds (backoff doubling, scheduling, the claim's lease): the rest would
        // be cut off silently, and a backoff of PT0.0005S became 0 ms, doubling from 0 into immediate retries.
        problem(key, key + "=" + value.get() + " is not a whole number of milliseconds: durations are counted in"
            + " milliseconds, the shortest is 1ms");
        return defaultValue;
      }
      return parsed;
    } catch (IllegalArgumentException e) {
      problem(key, key + "=" + value.get() + " is not a duration: " + e.getMessage());
      return defaultValue;
    }
  }

  /** A size in bytes: {@code 1048576}, {@code 512KB}, {@code 16MB}, {@code 1GB} (KB = KiB = 1024 bytes). */
  private long size(String key) {
    Optional<String> value = lookup.apply(key);
    if (value.isEmpty()) {
      return Long.MAX_VALUE;
    }
    Matcher matcher = SIZE.matcher(value.get().trim().toLowerCase(Locale.ROOT));
    if (!matcher.matches()) {
      problem(key, key + "=" + value.get() + " is not a size: use a number of bytes, optionally with KB, MB or GB"
          + " (powers of 1024), for example 1MB");
      return Long.MAX_VALUE;
    }
    try {
      long amount = Long.parseLong(matcher.group(1));
      String unit = matcher.group(2) == null ? "b" : matcher.group(2);
      long factor = switch (unit.charAt(0)) {
        case 'k' -> 1024L;
        case 'm' -> 1024L * 1024;
        case 'g' -> 1024L * 1024 * 1024;
        default -> 1L;
      };
      long bytes = Math.multiplyExact(amount, factor);
      if (bytes < 1 || bytes > Integer.MAX_VALUE) {
        problem(key, key + "=" + value.get() + " is out of range: use 1 byte to 2GB");
        return Long.MAX_VALUE;
      }
      return bytes;
    } catch (ArithmeticException | NumberFormatException tooLarge) {
      problem(key, key + "=" + value.get() + " is out of range: use 1 byte to 2GB");
      return Long.MAX_VALUE;
    }
  }

  /** Digits that {@code parseInt}/{@code parseLong} refused: a number too large for its type, not a typo. */
  private static boolean isWholeNumber(String value) {
    return value.trim().matches("[-+]?\\d+");
  }

  private void problem(String key, String message) {
    problems.add(new OutboxConfigurationException(key, message));
  }
}
