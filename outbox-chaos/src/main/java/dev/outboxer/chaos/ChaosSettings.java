package dev.outboxer.chaos;

import dev.outboxer.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The knobs of one chaos run, passed from the orchestrator to every process as {@code key=value}
 * arguments so that all of them agree. Unknown keys are refused: a misspelt switch would otherwise
 * run a different experiment than the one asked for.
 *
 * <p>Durations are written as {@code 500ms}, {@code 4s} or {@code 2m}.
 */
final class ChaosSettings {

  /** Every key with its default: the short run's values. */
  private static final Map<String, String> DEFAULTS = new LinkedHashMap<>();

  static {
    DEFAULTS.put("run", "short");
    DEFAULTS.put("database", "postgresql");
    DEFAULTS.put("relay", "table");
    DEFAULTS.put("workers", "3");
    DEFAULTS.put("partitions", "4");
    DEFAULTS.put("messages", "3000");
    DEFAULTS.put("groups", "100");
    DEFAULTS.put("publisher-threads", "4");
    // Publishing is spread over this much time, which is also how long faults are injected.
    DEFAULTS.put("fault-period", "80s");
    DEFAULTS.put("seed", "20261204");
    DEFAULTS.put("fencing", "on");
    // local: where the handler writes its row: in the worker's transaction, or (a control) on a
    // connection of its own, outside it, as the README's fine print warns against.
    DEFAULTS.put("local-write", "transaction");
    // jms/kafka: the consumer drops copies with outbox-inbox before its handler records them.
    DEFAULTS.put("inbox", "off");
    // kafka or rabbitmq with inbox=on: after this many arrivals the consumer acts as if it crashed
    // between its database commit and its offset commit (Kafka: it goes back to the last committed
    // offsets) or its acknowledgement (RabbitMQ: its channel closes with the delivery unacknowledged),
    // so those arrivals come again and the inbox must drop them (0: never).
    DEFAULTS.put("consumer-rewind-every", "0");
    DEFAULTS.put("max-attempts", "3");
    DEFAULTS.put("rollback-rate", "0.1");
    // Relay faults (table and local relays): share of records failed on purpose, share of batches that hang.
    DEFAULTS.put("fail-rate", "0.1");
    DEFAULTS.put("hang-rate", "0.03");
    DEFAULTS.put("hang", "3500ms");
    // Share of hangs during which the hung worker's database sessions are ended (as a lease would).
    DEFAULTS.put("hang-cut-rate", "1");
    // A slow destination keeps workers inside the relay most of the time, where faults matter.
    DEFAULTS.put("record-delay", "3ms");
    DEFAULTS.put("batch-size", "20");
    DEFAULTS.put("poll-interval", "100ms");
    DEFAULTS.put("relay-timeout", "2s");
    // The claim's lease, used once the core knows outbox.<name>.transaction-timeout.
    DEFAULTS.put("lease", "4s");
    // Mean time between two process-level faults, and how long a pause lasts.
    DEFAULTS.put("fault-every", "3s");
    DEFAULTS.put("pause-min", "5s");
    DEFAULTS.put("pause-max", "7s");
    // Share of pauses whose database sessions are also ended halfway (as a lease would end).
    DEFAULTS.put("pause-cut-rate", "0.5");
    DEFAULTS.put("faults", "kill,connections,pause");
    // Fault db-down: a worker killed and started again while its database refuses connections, for this long.
    DEFAULTS.put("db-down", "6s");
    // Fault partition: the link of the worker in its own network namespace (netns-worker, e.g. worker-3) is
    // down this long, without a reset; needs root, ip netns, and a database that listens on the host side.
    DEFAULTS.put("partition", "12s");
    DEFAULTS.put("netns-worker", "");
    // The namespace, the host side of its veth pair and the host's address on it, as netns.sh sets them up.
    DEFAULTS.put("netns", "outboxer-chaos");
    DEFAULTS.put("netns-link", "oxc-h");
    DEFAULTS.put("netns-host", "10.244.77.1");
    // After the faults: how long the wait for the outbox to empty (and the consumer to fall quiet) may go
    // without progress before the run counts as not drained.
    DEFAULTS.put("drain-timeout", "120s");
    // Set by the orchestrator: host:port of the broker process (jms, kafka).
    DEFAULTS.put("broker", "");
    // What a worker process runs: java-se (WorkerMain on Weld) or quarkus (outbox-chaos-quarkus' quarkus-run.jar,
    // the same worker as a Quarkus application; relay=table on PostgreSQL only).
    DEFAULTS.put("worker", "java-se");
  }

  private final Map<String, String> values;

  private ChaosSettings(Map<String, String> values) {
    this.values = values;
  }

  /** The short run's settings. */
  static ChaosSettings defaults() {
    return new ChaosSettings(new LinkedHashMap<>(DEFAULTS));
  }

  /**
   * Parses {@code key=value} arguments over the defaults.
   *
   * @throws IllegalArgumentException for an unknown key or an argument without '='
   */
  static ChaosSettings parse(String... args) {
    ChaosSettings settings = defaults();
    for (String arg : args) {
      String trimmed = arg.startsWith("--") ? arg.substring(2) : arg;
      int eq = trimmed.indexOf('=');
      if (eq < 1) {
        throw new IllegalArgumentException("Chaos argument '" + arg + "' is not key=value: write e.g. relay=jms"
            + " (keys: " + DEFAULTS.keySet() + ")");
      }
      settings = settings.with(trimmed.substring(0, eq), trimmed.substring(eq + 1));
    }
    return settings;
  }

  /** A copy with one value changed. */
  ChaosSettings with(String key, String value) {
    if (!DEFAULTS.containsKey(key)) {
      throw new IllegalArgumentException("Unknown chaos setting '" + key + "=" + value + "': use one of "
          + DEFAULTS.keySet());
    }
    Map<String, String> copy = new LinkedHashMap<>(values);
    copy.put(key, value.trim());
    return new ChaosSettings(copy);
  }

  /** The arguments that recreate these settings in another process. */
  List<String> toArgs() {
    List<String> args = new ArrayList<>();
    values.forEach((key, value) -> args.add(key + "=" + value));
    return args;
  }

  String run() { return values.get("run"); }

  TestDatabase database() {
    String value = values.get("database").toLowerCase(Locale.ROOT);
    return switch (value) {
      case "postgresql", "postgres", "pg" -> TestDatabase.POSTGRESQL;
      case "mariadb" -> TestDatabase.MARIADB;
      default -> throw new IllegalArgumentException("database=" + value + " is not supported by the chaos suite:"
          + " use postgresql or mariadb (H2 and Derby cannot be shared by several processes)");
    };
  }

  /** What a worker process runs: {@code java-se} or {@code quarkus}. */
  String worker() {
    String worker = values.get("worker");
    if (!List.of("java-se", "quarkus").contains(worker)) {
      throw new IllegalArgumentException("worker=" + worker + " is not a chaos worker: use java-se (WorkerMain) or"
          + " quarkus (outbox-chaos-quarkus' quarkus-run.jar)");
    }
    if (worker.equals("quarkus") && !(relay().equals("table") && database() == TestDatabase.POSTGRESQL)) {
      throw new IllegalArgumentException("worker=quarkus runs relay=table on database=postgresql only (the Quarkus"
          + " worker is built for PostgreSQL and carries the table relay); got relay=" + relay() + ", database="
          + values.get("database"));
    }
    return worker;
  }

  String relay() {
    String relay = values.get("relay");
    if (!List.of("table", "local", "jms", "kafka", "rabbitmq").contains(relay)) {
      throw new IllegalArgumentException("relay=" + relay + " is not a chaos relay: use table, local, jms, kafka or"
          + " rabbitmq");
    }
    return relay;
  }

  /** Whether the relay sends to a broker (jms, kafka, rabbitmq), read by a consumer in the orchestrator. */
  boolean brokerRelay() {
    return relay().equals("jms") || relay().equals("kafka") || relay().equals("rabbitmq");
  }

  /**
   * Whether the run starts its broker in a process of its own (jms: Artemis, kafka: KRaft); the
   * rabbitmq relay sends to the machine's RabbitMQ (127.0.0.1:5672, guest).
   */
  boolean brokerProcess() {
    return relay().equals("jms") || relay().equals("kafka");
  }

  /** Whether the local handler writes outside the worker's transaction ({@code local-write=outside}, a control). */
  boolean localWriteOutside() {
    String value = values.get("local-write");
    if (!value.equals("transaction") && !value.equals("outside")) {
      throw new IllegalArgumentException("local-write=" + value + " must be transaction (the handler's row commits with"
          + " the deletion) or outside (its own connection: a control that must show duplicates)");
    }
    return value.equals("outside");
  }

  /** Whether the broker consumer drops copies with the inbox ({@code inbox=on}, jms, kafka and rabbitmq only). */
  boolean inbox() {
    String value = values.get("inbox");
    if (!value.equals("on") && !value.equals("off")) {
      throw new IllegalArgumentException("inbox=" + value + " must be on or off");
    }
    if (value.equals("on") && !brokerRelay()) {
      throw new IllegalArgumentException("inbox=on needs a broker consumer: use it with relay=jms, kafka or rabbitmq, not"
          + " relay=" + relay() + " (the local relay is exactly once without an inbox)");
    }
    return value.equals("on");
  }

  /**
   * Arrivals between two rewinds of the consumer behind the inbox ({@code consumer-rewind-every}, 0
   * for none): each rewind redelivers what arrived since the last offset commit (Kafka) or the
   * delivery not yet acknowledged (RabbitMQ), copies the inbox must drop however the faults fall.
   */
  int consumerRewindEvery() {
    String value = values.get("consumer-rewind-every");
    int every;
    try {
      every = Integer.parseInt(value);
    } catch (NumberFormatException e) {
      every = -1;
    }
    if (every < 0) {
      throw new IllegalArgumentException("consumer-rewind-every=" + value + " must be a whole number, 0 for never");
    }
    if (every > 0 && !(inbox() && (relay().equals("kafka") || relay().equals("rabbitmq")))) {
      throw new IllegalArgumentException("consumer-rewind-every=" + value + " needs relay=kafka or rabbitmq and"
          + " inbox=on (the consumer commits its offsets or acknowledges after the database only then); relay="
          + relay() + ", inbox=" + values.get("inbox"));
    }
    return every;
  }

  /**
   * Whether every duplicate that reaches the handler is a violation: the local relay commits the
   * handler's write with the deletion, and the inbox drops copies before the handler.
   */
  boolean exactlyOnce() {
    return relay().equals("local") || inbox();
  }

  int workers() { return positiveInt("workers"); }
  int partitions() { return positiveInt("partitions"); }
  int messages() { return positiveInt("messages"); }
  int groups() { return positiveInt("groups"); }
  int publisherThreads() { return positiveInt("publisher-threads"); }
  Duration faultPeriod() { return duration("fault-period"); }
  long seed() { return Long.parseLong(values.get("seed")); }

  boolean fencing() {
    String value = values.get("fencing");
    if (!value.equals("on") && !value.equals("off")) {
      throw new IllegalArgumentException("fencing=" + value + " must be on or off");
    }
    return value.equals("on");
  }

  /** {@code infinity} or a positive number, as Outboxer's key takes it. */
  String maxAttempts() { return values.get("max-attempts"); }

  /** @return the number, or {@link Long#MAX_VALUE} for {@code infinity} */
  long maxAttemptsNumber() {
    return maxAttempts().equalsIgnoreCase("infinity") ? Long.MAX_VALUE : Long.parseLong(maxAttempts());
  }

  double rollbackRate() { return rate("rollback-rate"); }
  double failRate() { return rate("fail-rate"); }
  double hangRate() { return rate("hang-rate"); }
  Duration hang() { return duration("hang"); }
  double hangCutRate() { return rate("hang-cut-rate"); }
  Duration recordDelay() { return duration("record-delay"); }
  int batchSize() { return positiveInt("batch-size"); }
  String pollInterval() { return values.get("poll-interval"); }
  Duration relayTimeout() { return duration("relay-timeout"); }
  String relayTimeoutText() { return values.get("relay-timeout"); }
  String lease() { return values.get("lease"); }
  Duration faultEvery() { return duration("fault-every"); }
  Duration pauseMin() { return duration("pause-min"); }
  Duration pauseMax() { return duration("pause-max"); }
  double pauseCutRate() { return rate("pause-cut-rate"); }
  Duration drainTimeout() { return duration("drain-timeout"); }
  Duration dbDown() { return duration("db-down"); }
  Duration partition() { return duration("partition"); }
  String netnsWorker() { return values.get("netns-worker").trim(); }
  String netns() { return values.get("netns"); }
  String netnsLink() { return values.get("netns-link"); }
  String netnsHost() { return values.get("netns-host"); }
  String broker() { return values.get("broker"); }

  /**
   * The process-level fault kinds switched on: {@code kill}, {@code connections}, {@code pause},
   * {@code db-down}, {@code partition}.
   */
  List<String> faults() {
    String value = values.get("faults").trim();
    List<String> kinds = value.isEmpty() || value.equals("none") ? List.of() : List.of(value.split("\\s*,\\s*"));
    for (String kind : kinds) {
      if (!List.of("kill", "connections", "pause", "db-down", "partition").contains(kind)) {
        throw new IllegalArgumentException("faults=" + value + " names an unknown fault '" + kind
            + "': use a comma-separated subset of kill,connections,pause,db-down,partition, or none");
      }
      if (kind.equals("partition") && netnsWorker().isEmpty()) {
        throw new IllegalArgumentException("faults=" + value + " has partition: name the worker that runs in a"
            + " network namespace of its own with netns-worker=worker-<n> (it needs root and ip netns)");
      }
    }
    return kinds;
  }

  private int positiveInt(String key) {
    String value = values.get(key);
    try {
      int number = Integer.parseInt(value);
      if (number < 1) {
        throw new NumberFormatException();
      }
      return number;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + "=" + value + " must be a whole number of at least 1");
    }
  }

  private double rate(String key) {
    String value = values.get(key);
    double rate = Double.parseDouble(value);
    if (rate < 0 || rate > 1) {
      throw new IllegalArgumentException(key + "=" + value + " must be a share between 0 and 1, e.g. 0.1");
    }
    return rate;
  }

  private Duration duration(String key) {
    return parseDuration(key, values.get(key));
  }

  static Duration parseDuration(String key, String value) {
    String text = value.trim().toLowerCase(Locale.ROOT);
    try {
      if (text.endsWith("ms")) {
        return Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
      }
      if (text.endsWith("s")) {
        return Duration.ofMillis(Math.round(Double.parseDouble(text.substring(0, text.length() - 1)) * 1000));
      }
      if (text.endsWith("m")) {
        return Duration.ofSeconds(Math.round(Double.parseDouble(text.substring(0, text.length() - 1)) * 60));
      }
    } catch (NumberFormatException e) {
      // falls through to the message below
    }
    throw new IllegalArgumentException(key + "=" + value + " is not a duration: write e.g. 500ms, 4s or 2m");
  }

  @Override
  public String toString() {
    return String.join(" ", toArgs());
  }
}
