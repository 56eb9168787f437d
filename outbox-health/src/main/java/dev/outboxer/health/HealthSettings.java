package dev.outboxer.health;

import static dev.outboxer.health.HealthSettingsCatalog.SPACE;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.spi.ConfigKeyNames;
import dev.outboxer.spi.CoreSettings;
import dev.outboxer.spi.Setting;
import dev.outboxer.spi.SettingsReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.Config;

/**
 * The health checks' settings, read from MicroProfile Config with {@link SettingsReader}s of
 * {@link HealthSettingsCatalog}'s declarations and checked as a whole: every problem is collected,
 * each naming the key (as written: an environment variable by its name), the value, the rule and
 * the fix. Beyond the readers' checks, this module refuses a stall time a healthy worker can reach,
 * keys of outboxes that do not exist, and an outbox named {@value HealthSettingsCatalog#SPACE}.
 *
 * @param outboxes the configured outboxes (an outbox exists when {@code outbox.<name>.relay} is set)
 * @param refreshInterval how long a backlog read from the database is reused
 * @param workerStall per outbox, how long its worker may go without running while messages wait
 * @param maxLag per outbox that sets one, the oldest pending age above which {@code outbox-lag} is DOWN
 * @param longTransaction how long a transaction on another session may be open before {@code
 *     outbox-long-transaction} warns
 */
record HealthSettings(SortedSet<String> outboxes, Duration refreshInterval, Map<String, Duration> workerStall,
    Map<String, Duration> maxLag, Duration longTransaction) {

  /** Added to an outbox's longest healthy quiet time when the default stall time has to be raised. */
  static final Duration STALL_MARGIN = Duration.ofSeconds(10);

  private static final Pattern RELAY_KEY = Pattern.compile("outbox\\.([^.]+)\\.relay");
  private static final Pattern OUTBOX_NAME = Pattern.compile("[A-Za-z0-9_-]{1,100}");
  /** The core's global key spaces, which are never outbox names. */
  private static final Set<String> RESERVED = Set.of("worker", "database", "metrics", "node-id", SPACE);
  /** {@code outbox.health.relay} in the environment spelling, which every spelling of the key shares. */
  private static final String HEALTH_RELAY = ConfigKeyNames.environmentName("outbox." + SPACE + ".relay");

  /** The settings if there was no problem, and the problems. */
  record Result(HealthSettings settings, List<OutboxConfigurationException> problems) {

    /**
     * For a start that reports one failure: the first problem's key, every problem's message in its
     * own, the problems suppressed in it; empty when there is none.
     */
    Optional<OutboxConfigurationException> failure() {
      if (problems.isEmpty()) {
        return Optional.empty();
      }
      StringBuilder message = new StringBuilder("outbox-health's configuration has ").append(problems.size())
          .append(problems.size() == 1 ? " problem:" : " problems:");
      problems.forEach(problem -> message.append("\n  - ").append(problem.getMessage()));
      OutboxConfigurationException failure = new OutboxConfigurationException(problems.get(0).key(), message.toString());
      problems.forEach(failure::addSuppressed);
      return Optional.of(failure);
    }
  }

  static Result read(Config config) {
    return read(key -> config.getOptionalValue(key, String.class), config.getPropertyNames());
  }

  /**
   * @param lookup the value of a key, empty when not set (MicroProfile Config counts an empty
   *     value as not set)
   * @param reportedNames every key the configuration knows
   */
  static Result read(Function<String, Optional<String>> lookup, Iterable<String> reportedNames) {
    // Read several times below: SmallRye Config's own Iterable cannot be iterated twice.
    List<String> propertyNames = new ArrayList<>();
    reportedNames.forEach(propertyNames::add);
    List<OutboxConfigurationException> problems = new ArrayList<>();
    // Environment variables are reported by their own names: each stands for the key it maps to.
    List<String> patterns = new ArrayList<>(HealthSettingsCatalog.GLOBAL.keyPatterns());
    patterns.add("outbox." + SPACE + "." + ConfigKeyNames.ANY);
    patterns.add("outbox." + ConfigKeyNames.NAME + "." + CoreSettings.RELAY.key());
    patterns.addAll(HealthSettingsCatalog.OUTBOX.keyPatterns());
    patterns.add(HealthSettingsCatalog.OUTBOX.prefix() + ConfigKeyNames.ANY);
    ConfigKeyNames.Resolved names = ConfigKeyNames.resolve(propertyNames, patterns);

    SortedSet<String> outboxes = outboxes(names, lookup, problems);
    problems.addAll(keysOfMissingOutboxes(names, lookup, outboxes));

    // outbox.health.relay declares an outbox named health, refused above: not also an unknown key of outbox-health.
    List<String> globalNames = new ArrayList<>();
    propertyNames.forEach(name -> {
      if (!ConfigKeyNames.environmentName(name).equals(HEALTH_RELAY)) {
        globalNames.add(name);
      }
    });
    SettingsReader global = SettingsReader.fromConfig(HealthSettingsCatalog.GLOBAL, null, lookup, globalNames);
    Duration refresh = global.get(HealthSettingsCatalog.REFRESH_INTERVAL);
    Duration longTransaction = global.get(HealthSettingsCatalog.LONG_TRANSACTION);
    Optional<Duration> configuredStall = global.optional(HealthSettingsCatalog.WORKER_STALL);
    Map<String, Duration> stall = new TreeMap<>();
    Map<String, Duration> maxLag = new TreeMap<>();
    for (String outbox : outboxes) {
      stall.put(outbox, workerStall(global, outbox, configuredStall, lookup));
      SettingsReader perOutbox = SettingsReader.fromConfig(HealthSettingsCatalog.OUTBOX, outbox, lookup,
          propertyNames);
      perOutbox.optional(HealthSettingsCatalog.MAX_LAG).ifPresent(lag -> maxLag.put(outbox, lag));
      problems.addAll(perOutbox.problems());
    }
    problems.addAll(global.problems());
    HealthSettings settings = new HealthSettings(outboxes, refresh, Map.copyOf(stall), Map.copyOf(maxLag),
        longTransaction);
    return new Result(problems.isEmpty() ? settings : null, List.copyOf(problems));
  }

  /** The outboxes as the core finds them: {@code outbox.<name>.relay} set, a valid name that is not reserved. */
  private static SortedSet<String> outboxes(ConfigKeyNames.Resolved names,
      Function<String, Optional<String>> lookup, List<OutboxConfigurationException> problems) {
    SortedSet<String> outboxes = new TreeSet<>();
    for (String key : names.keys()) {
      Matcher relay = RELAY_KEY.matcher(key);
      if (!relay.matches() || lookup.apply(key).isEmpty()) {
        continue;
      }
      String name = relay.group(1);
      if (name.equals(SPACE)) {
        problems.add(new OutboxConfigurationException(key, names.written(key) + " declares an outbox named '" + SPACE
            + "', but outbox." + SPACE + ".* holds the settings of outbox-health: give the outbox another name"));
      } else if (OUTBOX_NAME.matcher(name).matches() && !RESERVED.contains(name)) {
        outboxes.add(name);
      }
      // Other bad names are the core's to report.
    }
    return outboxes;
  }

  /** {@code outbox.<name>.health.*} set for a name that is no outbox: a misspelt outbox name, most likely. */
  private static List<OutboxConfigurationException> keysOfMissingOutboxes(ConfigKeyNames.Resolved names,
      Function<String, Optional<String>> lookup, Set<String> outboxes) {
    List<OutboxConfigurationException> problems = new ArrayList<>();
    Set<String> variables = new TreeSet<>();
    for (String key : names.keys()) {
      if (!key.startsWith("outbox.") || key.startsWith("outbox." + SPACE + ".") || lookup.apply(key).isEmpty()) {
        continue;
      }
      String written = names.written(key);
      if (!written.equals(key) && !variables.add(written)) {
        continue; // a variable's dotted twin beside its own key: one variable, checked once
      }
      String rest = key.substring("outbox.".length());
      int dot = rest.indexOf('.');
      if (dot < 0 || !rest.startsWith(SPACE + ".", dot + 1)) {
        continue;
      }
      String outbox = rest.substring(0, dot);
      if (!outboxes.contains(outbox)) {
        problems.add(new OutboxConfigurationException(key, written + " is set but no outbox '" + outbox
            + "' exists: an outbox exists when outbox." + outbox + ".relay is set. Configured outboxes: " + outboxes));
      }
    }
    return problems;
  }

  /**
   * The stall time of one outbox. A healthy worker goes at most its relay timeout (a batch) plus
   * its longest idle poll without starting or ending a run; a stall time at or below that would
   * report healthy workers as stalled, so an explicit one must exceed it and the default is raised
   * above it.
   */
  private static Duration workerStall(SettingsReader global, String outbox, Optional<Duration> configured,
      Function<String, Optional<String>> lookup) {
    // The core's keys, read with the core's declarations and defaults. Their problems are the core's to report: a
    // refused value counts as the default here.
    SettingsReader core = SettingsReader.lookingUp(CoreSettings.OUTBOX, outbox, lookup, "");
    Duration relayTimeout = core.get(CoreSettings.RELAY_TIMEOUT);
    Duration pollInterval = core.get(CoreSettings.POLL_INTERVAL);
    Duration defaultMaxPoll = CoreSettings.MAX_POLL_INTERVAL.defaultValue().orElseThrow();
    Duration maxPoll = core.optional(CoreSettings.MAX_POLL_INTERVAL)
        .orElse(pollInterval.compareTo(defaultMaxPoll) > 0 ? pollInterval : defaultMaxPoll);
    Duration quiet = relayTimeout.plus(maxPoll);
    Duration defaultStall = HealthSettingsCatalog.WORKER_STALL.defaultValue().orElseThrow();
    if (configured.isEmpty()) {
      Duration raised = quiet.plus(STALL_MARGIN);
      return raised.compareTo(defaultStall) > 0 ? raised : defaultStall;
    }
    if (configured.get().compareTo(quiet) <= 0) {
      String relayTimeoutKey = core.fullKey(CoreSettings.RELAY_TIMEOUT.key());
      String maxPollKey = core.fullKey(CoreSettings.MAX_POLL_INTERVAL.key());
      global.problem(HealthSettingsCatalog.WORKER_STALL, "is not longer than the longest time a healthy worker of"
          + " outbox '" + outbox + "' goes without running: " + relayTimeoutKey + " (" + format(relayTimeout) + ") + "
          + maxPollKey + " (" + format(maxPoll) + ") = " + format(quiet) + ", so a worker in a normal batch would be"
          + " reported stalled. Raise " + global.fullKey(HealthSettingsCatalog.WORKER_STALL.key()) + " above "
          + format(quiet) + ", or remove it to use the default (" + format(defaultStall) + ", raised where an"
          + " outbox needs more)");
    }
    return configured.get();
  }

  /** A duration the way users write it, for messages and health data. */
  static String format(Duration duration) {
    return Setting.formatDuration(duration);
  }
}
