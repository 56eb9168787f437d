package dev.outboxer.cdi.internal.config;

import static dev.outboxer.cdi.internal.config.ConfigKeys.OUTBOX_NAME_PATTERN;
import static dev.outboxer.cdi.internal.config.ConfigKeys.PREFIX;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.Ordering;
import dev.outboxer.spi.ConfigKeyNames;
import dev.outboxer.spi.CoreSettings;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.spi.Setting;
import dev.outboxer.spi.SettingsReader;
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
  /** The keys of an outbox without its prefix, as {@link CoreSettings#OUTBOX} declares them. */
  private static final Set<String> OUTBOX_KEYS = CoreSettings.OUTBOX.keys();
  /** The global keys, {@code outbox.worker}..., as {@link CoreSettings#GLOBAL} declares them. */
  private static final Set<String> GLOBAL_KEYS = Set.copyOf(CoreSettings.GLOBAL.keyPatterns());

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

    // The global keys, outbox.*: where = "" keeps the core's messages as "key=value reason".
    SettingsReader global = SettingsReader.lookingUp(CoreSettings.GLOBAL, null, lookup, "");
    WorkerMode mode = WorkerMode.fromConfig(global.get(CoreSettings.WORKER)).orElse(WorkerMode.EXECUTOR);
    int threads = global.optional(CoreSettings.WORKER_THREADS).orElse(0);
    Optional<String> database;
    if (global.raw(CoreSettings.DATABASE).filter("derby"::equalsIgnoreCase).isPresent()) {
      global.problem(CoreSettings.DATABASE, "is not a supported database: use " + CoreSettings.DATABASE.range()
          + ", or remove the key to detect it (Derby is no longer supported)");
      database = Optional.empty();
    } else {
      database = global.optional(CoreSettings.DATABASE);
    }
    Duration metricsRefresh = global.get(CoreSettings.METRICS_REFRESH);
    String nodeId = global.optional(CoreSettings.NODE_ID).orElseGet(() -> ManagementFactory.getRuntimeMXBean().getName());
    if (nodeId.length() > 200) {
      String key = ConfigKeys.global(CoreSettings.NODE_ID);
      global.problem(new OutboxConfigurationException(key, key + " is " + nodeId.length()
          + " characters long; the limit is 200"));
    }
    SchemaMode schema = SchemaMode.fromConfig(global.get(CoreSettings.SCHEMA)).orElse(SchemaMode.VALIDATE);
    boolean notifyWakeUp = global.get(CoreSettings.WAKE_UP).equals("notify");
    Optional<String> executor = global.optional(CoreSettings.WORKER_EXECUTOR);
    Optional<String> dataSource = global.optional(CoreSettings.DATASOURCE);
    problems.addAll(global.problems());

    OutboxConfiguration configuration = new OutboxConfiguration(outboxes, mode, executor, threads,
        database, metricsRefresh, nodeId, schema, dataSource, notifyWakeUp);
    return new Result(configuration, List.copyOf(problems), List.copyOf(relayChecks));
  }

  /**
   * One outbox's keys, outbox.<name>.*, read through {@link CoreSettings#OUTBOX}, then the rules between them.
   * Every problem is recorded, and the outbox's relay check kept with the defaults in place of refused values.
   */
  private Optional<OutboxSettings> readOutbox(String name, Set<String> keys) {
    SettingsReader reader = SettingsReader.lookingUp(CoreSettings.OUTBOX, name, lookup, "");
    String relay = reader.get(CoreSettings.RELAY);

    Ordering ordering = reader.get(CoreSettings.ORDERING);
    int partitions = reader.get(CoreSettings.PARTITIONS);
    if (ordering == Ordering.TOTAL && partitions != 1) {
      String partitionsKey = key(name, CoreSettings.PARTITIONS);
      reader.problem(new OutboxConfigurationException(partitionsKey, partitionsKey + "=" + partitions + " contradicts "
          + key(name, CoreSettings.ORDERING) + "=total, which keeps one global order with exactly one partition:"
          + " remove the key or set it to 1"));
    }

    long maxAttempts = maxAttempts(reader);
    List<String> deadOn = deadOn(reader);

    Duration backoffMin = reader.get(CoreSettings.BACKOFF_MIN);
    Duration backoffMax = reader.get(CoreSettings.BACKOFF_MAX);
    if (backoffMin.compareTo(backoffMax) > 0) {
      String minKey = key(name, CoreSettings.BACKOFF_MIN);
      reader.problem(new OutboxConfigurationException(minKey, minKey + "=" + Setting.formatDuration(backoffMin)
          + " is greater than " + key(name, CoreSettings.BACKOFF_MAX) + "=" + Setting.formatDuration(backoffMax)
          + ": the first retry delay cannot exceed the longest one"));
    }

    boolean serializeWrites = reader.get(CoreSettings.SERIALIZE_WRITES);
    int batchSize = reader.get(CoreSettings.BATCH_SIZE);
    Duration pollInterval = reader.get(CoreSettings.POLL_INTERVAL);
    Duration defaultMaxPoll = CoreSettings.MAX_POLL_INTERVAL.defaultValue().orElseThrow();
    Duration maxPollInterval = reader.optional(CoreSettings.MAX_POLL_INTERVAL)
        .orElse(defaultMaxPoll.compareTo(pollInterval) < 0 ? pollInterval : defaultMaxPoll);
    if (maxPollInterval.compareTo(pollInterval) < 0) {
      String maxPollKey = key(name, CoreSettings.MAX_POLL_INTERVAL);
      reader.problem(new OutboxConfigurationException(maxPollKey, maxPollKey + "="
          + Setting.formatDuration(maxPollInterval) + " is shorter than " + key(name, CoreSettings.POLL_INTERVAL) + "="
          + Setting.formatDuration(pollInterval) + ": idle polling slows down from poll-interval to max-poll-interval"));
    }
    String relayTimeoutKey = key(name, CoreSettings.RELAY_TIMEOUT);
    String transactionTimeoutKey = key(name, CoreSettings.TRANSACTION_TIMEOUT);
    Duration relayTimeout = readExplained(reader, CoreSettings.RELAY_TIMEOUT, " (it must fit inside "
        + transactionTimeoutKey + ", at most " + CoreSettings.TRANSACTION_TIMEOUT.range().replaceFirst(".* to ", "")
        + ")");
    Duration transactionTimeout = readExplained(reader, CoreSettings.TRANSACTION_TIMEOUT, " (a claim of a partition"
        + " lasts that long at most when its worker stops; keep it short)");
    // The relay timeout must end well inside the worker's transaction (the claim's lease): room for the database
    // work after the relay, and for the transaction manager's and the database's own timing.
    Duration headroom = transactionTimeout.dividedBy(4).compareTo(Duration.ofSeconds(1)) > 0
        ? transactionTimeout.dividedBy(4) : Duration.ofSeconds(1);
    if (relayTimeout.plus(headroom).compareTo(transactionTimeout) > 0) {
      reader.problem(new OutboxConfigurationException(relayTimeoutKey, relayTimeoutKey + "="
          + Setting.formatDuration(relayTimeout) + " does not fit inside " + transactionTimeoutKey + "="
          + Setting.formatDuration(transactionTimeout) + ": a batch's transaction (and with it the worker's claim of"
          + " the partition) must outlast the relay by at least a quarter of it, and by 1s at least. Lower "
          + relayTimeoutKey + " to " + Setting.formatDuration(transactionTimeout.minus(headroom).isNegative()
          ? Duration.ZERO : transactionTimeout.minus(headroom)) + " or less, or raise " + transactionTimeoutKey + " to "
          + Setting.formatDuration(relayTimeout.multipliedBy(4).dividedBy(3).plusSeconds(1)) + " or more"));
    }
    long maxPayloadSize = reader.optional(CoreSettings.MAX_PAYLOAD_SIZE).orElse(Long.MAX_VALUE);
    Duration maxDelay = reader.get(CoreSettings.MAX_DELAY);
    int adminChunkSize = reader.get(CoreSettings.ADMIN_CHUNK_SIZE);
    Duration deadRetention = reader.optional(CoreSettings.DEAD_RETENTION).orElse(null);
    Duration retentionInterval = reader.get(CoreSettings.RETENTION_INTERVAL);
    boolean workerTransactionAlwaysJta = "jta".equals(reader.get(CoreSettings.WORKER_TRANSACTION));

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

    relayChecks.add(new RelayCheck(key(name, CoreSettings.RELAY), relay,
        new RelayContext(name, ordering, partitions, relayTimeout, relayProperties)));
    problems.addAll(reader.problems());
    if (!reader.problems().isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new OutboxSettings(name, relay, ordering, partitions, maxAttempts, deadOn, backoffMin, backoffMax,
        serializeWrites, batchSize, pollInterval, maxPollInterval, relayTimeout, transactionTimeout,
        maxPayloadSize, maxDelay, adminChunkSize, deadRetention, retentionInterval, workerTransactionAlwaysJta,
        relayProperties));
  }

  /**
   * {@code max-attempts}: {@code infinity} (in any case) or a number of attempts from 1, which its declaration, a
   * text, leaves to the core.
   */
  private static long maxAttempts(SettingsReader reader) {
    String value = reader.get(CoreSettings.MAX_ATTEMPTS).strip();
    if (value.equalsIgnoreCase(CoreSettings.INFINITY)) {
      return OutboxSettings.UNLIMITED_ATTEMPTS;
    }
    try {
      long attempts = Long.parseLong(value);
      if (attempts < 1) {
        reader.problem(CoreSettings.MAX_ATTEMPTS, "must be at least 1, or 'infinity' to retry forever");
        return OutboxSettings.UNLIMITED_ATTEMPTS;
      }
      return attempts;
    } catch (NumberFormatException e) {
      reader.problem(CoreSettings.MAX_ATTEMPTS, (value.matches("[-+]?\\d+")
          ? "is out of range: use a number from 1 to " + Long.MAX_VALUE : "is not a number: use a positive number")
          + ", or 'infinity' to retry forever");
      return OutboxSettings.UNLIMITED_ATTEMPTS;
    }
  }

  /**
   * {@code dead-on}: each class must be loadable and a {@link Throwable}, where the deployment can tell. A class the
   * application cannot load would never match, silently: refused, like a misspelt key.
   */
  private static List<String> deadOn(SettingsReader reader) {
    List<String> names = reader.get(CoreSettings.DEAD_ON);
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    if (loader == null) {
      loader = OutboxConfigReader.class.getClassLoader();
    }
    for (String name : names) {
      Class<?> type;
      try {
        type = Class.forName(name, false, loader);
      } catch (ClassNotFoundException | LinkageError missing) {
        reader.problem(CoreSettings.DEAD_ON, "names no class on the application's class path: " + name + " (a class"
            + " that cannot be loaded would never match a failure; correct the name, or remove it)");
        return List.of();
      }
      if (!Throwable.class.isAssignableFrom(type)) {
        reader.problem(CoreSettings.DEAD_ON, "lists " + name + ", but " + name + " is not an exception class (not a"
            + " java.lang.Throwable): list the exception classes whose failures are permanent");
        return List.of();
      }
    }
    return names;
  }

  /**
   * A duration whose limit follows from another key's: a value over the limit is refused with {@code why} after the
   * declaration's own words ("is too long: the limit is 1h (it must fit inside ...)").
   */
  private static Duration readExplained(SettingsReader reader, Setting<Duration> setting, String why) {
    Duration defaultValue = setting.defaultValue().orElseThrow();
    Optional<String> value = reader.raw(setting);
    if (value.isEmpty()) {
      return defaultValue;
    }
    try {
      return setting.parse(value.get());
    } catch (IllegalArgumentException refused) {
      reader.problem(setting, refused.getMessage() + (refused.getMessage().startsWith("is too long") ? why : ""));
      return defaultValue;
    }
  }

  private static String key(String outbox, Setting<?> setting) {
    return ConfigKeys.key(outbox, setting);
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
          + " by _, upper-cased: " + key("orders", CoreSettings.MAX_ATTEMPTS) + " is "
          + ConfigKeyNames.environmentName(key("orders", CoreSettings.MAX_ATTEMPTS)));
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
        if (!keys.contains(key(outbox, CoreSettings.RELAY)) && !RESERVED_NAMES.contains(outbox)) {
          problem(key, names.written(key) + " is set but no outbox '" + outbox + "' exists: an outbox exists when "
              + key(outbox, CoreSettings.RELAY) + " is set (jms, kafka or the @Named name of a Relay bean)."
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
          problem(key, names.written(key) + " is a setting of the " + keyRelay + " relay, but " + key(outbox, CoreSettings.RELAY) + "="
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

  private void problem(String key, String message) {
    problems.add(new OutboxConfigurationException(key, message));
  }
}
