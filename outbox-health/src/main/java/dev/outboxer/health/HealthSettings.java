package dev.outboxer.health;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.spi.ConfigKeyNames;
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
 * The health checks' settings, read from MicroProfile Config and checked as a whole: every problem
 * is collected, each naming the key, the value, the rule and the fix.
 *
 * @param outboxes the configured outboxes (an outbox exists when {@code outbox.<name>.relay} is set)
 * @param refreshInterval how long a backlog read from the database is reused
 * @param workerStall per outbox, how long its worker may go without running while messages wait
 * @param maxLag per outbox that sets one, the oldest pending age above which {@code outbox-lag} is DOWN
 */
record HealthSettings(SortedSet<String> outboxes, Duration refreshInterval, Map<String, Duration> workerStall,
    Map<String, Duration> maxLag) {

  private static final Pattern RELAY_KEY = Pattern.compile("outbox\\.([^.]+)\\.relay");
  private static final Pattern OUTBOX_NAME = Pattern.compile("[A-Za-z0-9_-]{1,100}");
  /** The core's global key spaces, which are never outbox names. */
  private static final Set<String> RESERVED = Set.of("worker", "database", "metrics", "node-id", HealthKeys.SPACE);

  /** The settings if there was no problem, and the problems. */
  record Result(HealthSettings settings, List<OutboxConfigurationException> problems) {}

  static Result read(Config config) {
    return read(key -> config.getOptionalValue(key, String.class), config.getPropertyNames());
  }

  /**
   * @param lookup the value of a key, empty when not set (MicroProfile Config counts an empty
   *     value as not set)
   * @param propertyNames every key the configuration knows
   */
  static Result read(Function<String, Optional<String>> lookup, Iterable<String> propertyNames) {
    return new Reader(lookup, propertyNames).read();
  }

  private static final class Reader {
    private final Function<String, Optional<String>> lookup;
    private final SortedSet<String> keys = new TreeSet<>();
    private final List<OutboxConfigurationException> problems = new ArrayList<>();
    private final ConfigKeyNames.Resolved names;

    Reader(Function<String, Optional<String>> lookup, Iterable<String> propertyNames) {
      this.lookup = lookup;
      // Environment variables are reported by their own names: each stands for the key it maps to.
      List<String> patterns = new ArrayList<>(HealthKeys.GLOBAL_KEYS);
      patterns.add("outbox." + HealthKeys.SPACE + "." + ConfigKeyNames.ANY);
      patterns.add(HealthKeys.outboxKey(ConfigKeyNames.NAME, HealthKeys.RELAY));
      HealthKeys.OUTBOX_KEYS.forEach(key -> patterns.add(HealthKeys.outboxKey(ConfigKeyNames.NAME, key)));
      patterns.add(HealthKeys.outboxKey(ConfigKeyNames.NAME, HealthKeys.SPACE + "." + ConfigKeyNames.ANY));
      this.names = ConfigKeyNames.resolve(propertyNames, patterns);
      keys.addAll(names.keys());
    }

    Result read() {
      SortedSet<String> outboxes = outboxes();
      checkUnknownKeys(outboxes);
      Duration refresh = duration(HealthKeys.REFRESH_INTERVAL).orElse(HealthKeys.DEFAULT_REFRESH_INTERVAL);
      Optional<Duration> configuredStall = duration(HealthKeys.WORKER_STALL);
      Map<String, Duration> stall = new TreeMap<>();
      Map<String, Duration> maxLag = new TreeMap<>();
      for (String outbox : outboxes) {
        stall.put(outbox, workerStall(outbox, configuredStall));
        duration(HealthKeys.outboxKey(outbox, HealthKeys.MAX_LAG)).ifPresent(lag -> maxLag.put(outbox, lag));
      }
      HealthSettings settings = new HealthSettings(outboxes, refresh, Map.copyOf(stall), Map.copyOf(maxLag));
      return new Result(problems.isEmpty() ? settings : null, List.copyOf(problems));
    }

    /** The outboxes as the core finds them: {@code outbox.<name>.relay} set, a valid name that is not reserved. */
    private SortedSet<String> outboxes() {
      SortedSet<String> outboxes = new TreeSet<>();
      for (String key : keys) {
        Matcher relay = RELAY_KEY.matcher(key);
        if (!relay.matches() || lookup.apply(key).isEmpty()) {
          continue;
        }
        String name = relay.group(1);
        if (name.equals(HealthKeys.SPACE)) {
          problem(key, key + " declares an outbox named '" + HealthKeys.SPACE + "', but outbox." + HealthKeys.SPACE
              + ".* holds the settings of outbox-health: give the outbox another name");
        } else if (OUTBOX_NAME.matcher(name).matches() && !RESERVED.contains(name)) {
          outboxes.add(name);
        }
        // Other bad names are the core's to report.
      }
      return outboxes;
    }

    private void checkUnknownKeys(Set<String> outboxes) {
      String globalPrefix = "outbox." + HealthKeys.SPACE + ".";
      Set<String> variables = new TreeSet<>();
      for (String key : keys) {
        if (!key.startsWith("outbox.") || lookup.apply(key).isEmpty()) {
          continue;
        }
        if (!names.written(key).equals(key) && !variables.add(names.written(key))) {
          continue; // a variable's dotted twin beside its own key: one variable, checked once
        }
        if (key.startsWith(globalPrefix)) {
          if (!HealthKeys.GLOBAL_KEYS.contains(key) && !RELAY_KEY.matcher(key).matches()) {
            String written = names.written(key);
            problem(key, written + " is not a key of outbox-health. Its keys are "
                + new TreeSet<>(HealthKeys.GLOBAL_KEYS) + " and, per outbox, outbox.<name>." + HealthKeys.MAX_LAG + "."
                + ConfigKeyNames.didYouMean(written, HealthKeys.GLOBAL_KEYS));
          }
          continue;
        }
        String rest = key.substring("outbox.".length());
        int dot = rest.indexOf('.');
        if (dot < 0 || !rest.startsWith(HealthKeys.SPACE + ".", dot + 1)) {
          continue;
        }
        String outbox = rest.substring(0, dot);
        String outboxKey = rest.substring(dot + 1);
        String written = names.written(key);
        if (!outboxes.contains(outbox)) {
          problem(key, written + " is set but no outbox '" + outbox + "' exists: an outbox exists when outbox." + outbox
              + ".relay is set. Configured outboxes: " + outboxes);
        } else if (!HealthKeys.OUTBOX_KEYS.contains(outboxKey)) {
          problem(key, written + " is not a key of outbox-health. Per outbox it reads outbox." + outbox + "."
              + HealthKeys.MAX_LAG + "; its global keys are " + new TreeSet<>(HealthKeys.GLOBAL_KEYS) + "."
              + ConfigKeyNames.didYouMean(written,
                  HealthKeys.OUTBOX_KEYS.stream().map(k -> HealthKeys.outboxKey(outbox, k)).toList()));
        }
      }
    }

    /**
     * The stall time of one outbox. A healthy worker goes at most its relay timeout (a batch) plus
     * its longest idle poll without starting or ending a run; a stall time at or below that would
     * report healthy workers as stalled, so an explicit one must exceed it and the default is raised
     * above it.
     */
    private Duration workerStall(String outbox, Optional<Duration> configured) {
      String relayTimeoutKey = HealthKeys.outboxKey(outbox, HealthKeys.RELAY_TIMEOUT);
      String maxPollKey = HealthKeys.outboxKey(outbox, HealthKeys.MAX_POLL_INTERVAL);
      Duration relayTimeout = coreDuration(relayTimeoutKey, HealthKeys.CORE_DEFAULT_RELAY_TIMEOUT);
      Duration pollInterval = coreDuration(HealthKeys.outboxKey(outbox, HealthKeys.POLL_INTERVAL),
          HealthKeys.CORE_DEFAULT_POLL_INTERVAL);
      Duration maxPoll = coreDuration(maxPollKey, pollInterval.compareTo(HealthKeys.CORE_DEFAULT_MAX_POLL_INTERVAL) > 0
          ? pollInterval : HealthKeys.CORE_DEFAULT_MAX_POLL_INTERVAL);
      Duration quiet = relayTimeout.plus(maxPoll);
      if (configured.isEmpty()) {
        Duration raised = quiet.plus(HealthKeys.STALL_MARGIN);
        return raised.compareTo(HealthKeys.DEFAULT_WORKER_STALL) > 0 ? raised : HealthKeys.DEFAULT_WORKER_STALL;
      }
      if (configured.get().compareTo(quiet) <= 0) {
        problem(HealthKeys.WORKER_STALL, HealthKeys.WORKER_STALL + "=" + DurationText.format(configured.get())
            + " is not longer than the longest time a healthy worker of outbox '" + outbox + "' goes without running: "
            + relayTimeoutKey + " (" + DurationText.format(relayTimeout) + ") + " + maxPollKey + " ("
            + DurationText.format(maxPoll) + ") = " + DurationText.format(quiet) + ", so a worker in a normal batch"
            + " would be reported stalled. Raise " + HealthKeys.WORKER_STALL + " above " + DurationText.format(quiet)
            + ", or remove it to use the default (" + DurationText.format(HealthKeys.DEFAULT_WORKER_STALL)
            + ", raised where an outbox needs more)");
      }
      return configured.get();
    }

    /** A positive duration of this module, if set; a bad value is a problem. */
    private Optional<Duration> duration(String key) {
      Optional<String> value = lookup.apply(key);
      if (value.isEmpty()) {
        return Optional.empty();
      }
      Duration parsed;
      try {
        parsed = DurationText.parse(value.get());
      } catch (IllegalArgumentException e) {
        problem(key, key + "=" + value.get() + " is not a duration: " + e.getMessage()
            + (e.getMessage().contains(DurationText.ACCEPTED) ? "" : ". Write " + DurationText.ACCEPTED));
        return Optional.empty();
      }
      if (parsed.isZero() || parsed.isNegative() || parsed.compareTo(HealthKeys.MAX_DURATION) > 0) {
        problem(key, key + "=" + value.get() + " is out of range: use a duration above 0 and at most "
            + DurationText.format(HealthKeys.MAX_DURATION));
        return Optional.empty();
      }
      return Optional.of(parsed);
    }

    /** A core key: its problems are the core's to report, so a bad value counts as the default here. */
    private Duration coreDuration(String key, Duration defaultValue) {
      try {
        return lookup.apply(key).map(DurationText::parse).filter(d -> !d.isNegative()).orElse(defaultValue);
      } catch (IllegalArgumentException reportedByTheCore) {
        return defaultValue;
      }
    }

    private void problem(String key, String message) {
      problems.add(new OutboxConfigurationException(key, message));
    }
  }
}
