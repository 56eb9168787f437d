package dev.outboxer.spi;

import dev.outboxer.Ordering;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The core's configuration keys, declared once: the global keys ({@code outbox.*}) and every
 * outbox's keys ({@code outbox.<name>.*}). The core reads them; add-ons that need the core's
 * timing (outbox-health's stall time, from the poll intervals and the relay timeout) read the same
 * declarations, so that a default changed here changes for all.
 *
 * <p>What it does not declare: the keys under an outbox's relay prefix ({@code
 * outbox.<name>.jms.*}) and the add-ons' key spaces ({@code outbox.health.*}); their modules do.
 */
public final class CoreSettings implements SettingsCatalog {

  /** The longest duration any key accepts: beyond it, arithmetic on times would overflow. */
  public static final Duration MAX_DURATION = Duration.ofDays(365);
  /** The word for "retry forever" of {@link #MAX_ATTEMPTS}. */
  public static final String INFINITY = "infinity";

  /** {@code outbox.<name>.relay}. */
  public static final Setting<String> RELAY = Setting.text("relay").required()
      .meaning("`jms`, `kafka`, `sqs`, `local`, or the `@Named` name of an application CDI bean implementing"
          + " `dev.outboxer.spi.Relay`; the outbox exists when this key is set");
  /** {@code outbox.<name>.ordering}. */
  public static final Setting<Ordering> ORDERING = Setting.oneOf("ordering", "ordering mode", orderings())
      .withDefault(Ordering.GROUP)
      .meaning("`group`: in order per group key; `total`: one order for the whole outbox (one partition);"
          + " `none`: no order");
  /** {@code outbox.<name>.partitions}. */
  public static final Setting<Integer> PARTITIONS = Setting.integer("partitions", 1, 1024).withDefault(1)
      .meaning("partitions, one worker each in the cluster; `total` needs exactly 1; can be changed on a live backlog");
  /** {@code outbox.<name>.max-attempts}: {@code infinity} or a number; the core parses it. */
  public static final Setting<String> MAX_ATTEMPTS = Setting.text("max-attempts").withDefault(INFINITY)
      .range("1 to 2^63-1, or infinity")
      .meaning("`infinity`: retry forever and keep the group blocked; a number: dead after that many failures, and"
          + " the group moves on");
  /** {@code outbox.<name>.dead-on}: exception classes whose failures are permanent; the core checks they exist. */
  public static final Setting<List<String>> DEAD_ON = Setting.list("dead-on").checkedBy(CoreSettings::classNames)
      .withDefault(List.of(), "none")
      .meaning("fully-qualified names of exception classes (`com.acme.SchemaRejected,java.io.FileNotFoundException`):"
          + " a failure that is one of them or a subclass, or has one among its causes, is permanent and the message"
          + " dies at once, also with `max-attempts=infinity`; each class must be on the application's class path");
  /** {@code outbox.<name>.backoff.min}. */
  public static final Setting<Duration> BACKOFF_MIN = Setting.duration("backoff.min", MAX_DURATION)
      .withDefault(Duration.ofSeconds(1)).meaning("first retry delay; doubles per failure");
  /** {@code outbox.<name>.backoff.max}. */
  public static final Setting<Duration> BACKOFF_MAX = Setting.duration("backoff.max", MAX_DURATION)
      .withDefault(Duration.ofSeconds(60)).meaning("longest retry delay (at least `backoff.min`)");
  /** {@code outbox.<name>.serialize-writes}. */
  public static final Setting<Boolean> SERIALIZE_WRITES = Setting.bool("serialize-writes").withDefault(false)
      .meaning("concurrent publishers of one group wait for each other, so that ids follow commit order");
  /** {@code outbox.<name>.batch-size}. */
  public static final Setting<Integer> BATCH_SIZE = Setting.integer("batch-size", 1, 10_000).withDefault(100)
      .meaning("messages read and handed to the relay per batch transaction");
  /** {@code outbox.<name>.poll-interval}. */
  public static final Setting<Duration> POLL_INTERVAL = Setting.duration("poll-interval", MAX_DURATION)
      .withDefault(Duration.ofMillis(500))
      .meaning("how soon a partition is read again when its last batch found work but not a full batch");
  /** {@code outbox.<name>.max-poll-interval}. */
  public static final Setting<Duration> MAX_POLL_INTERVAL = Setting.duration("max-poll-interval", MAX_DURATION)
      .withDefault(Duration.ofSeconds(5))
      .meaning("idle polling slows down, doubling from `poll-interval` up to this (at least `poll-interval`)");
  /** {@code outbox.<name>.relay-timeout}. */
  public static final Setting<Duration> RELAY_TIMEOUT = Setting.duration("relay-timeout", Duration.ofHours(1))
      .withDefault(Duration.ofSeconds(30))
      .meaning("how long a worker waits for the relay per batch; unreported records then count as failed. It must"
          + " end a quarter of `transaction-timeout` (at least 1s) before it");
  /** {@code outbox.<name>.transaction-timeout}. */
  public static final Setting<Duration> TRANSACTION_TIMEOUT =
      Setting.duration("transaction-timeout", Duration.ofHours(2)).withDefault(Duration.ofSeconds(60))
          .meaning("the timeout of a batch's transaction, and so the longest a worker that stopped can hold its"
              + " partition; its claim's lease is this minus max(500ms, 10%)");
  /** {@code outbox.<name>.worker-transaction}. */
  public static final Setting<String> WORKER_TRANSACTION = Setting.oneOf("worker-transaction",
      "worker transaction mode", choices("auto", "jta")).withDefault("auto")
      .meaning("`auto`: batches run in plain database transactions when the relay does not use the worker's"
          + " transaction (Kafka, SQS, RabbitMQ) and Outboxer has a data source, else in JTA transactions; `jta`:"
          + " always in JTA transactions (for a data source that refuses local transactions)");
  /** {@code outbox.<name>.admin-chunk-size}. */
  public static final Setting<Integer> ADMIN_CHUNK_SIZE = Setting.integer("admin-chunk-size", 1, 10_000)
      .withDefault(10_000)
      .meaning("messages an admin operation (`retryDead`, `retryDeadGroup`, `discardAll`, `discardDeadGroup`) changes"
          + " per transaction when called outside one: each chunk is committed on its own");
  /** {@code outbox.<name>.max-payload-size}. */
  public static final Setting<Long> MAX_PAYLOAD_SIZE = Setting.size("max-payload-size", 1, Integer.MAX_VALUE)
      .withDefault(null, "the database's and the relay's limit")
      .meaning("refuse larger payloads at `publish` (`512KB`, `1MB`, bytes); above the database's or the relay's own"
          + " limit is a deployment error");
  /** {@code outbox.<name>.max-delay}. */
  public static final Setting<Duration> MAX_DELAY = Setting.duration("max-delay", Duration.ofDays(3650))
      .withDefault(MAX_DURATION)
      .meaning("refuse a message whose `notBefore` lies further ahead than this at `publish`: a delayed message"
          + " holds back its group, so a time years ahead is more likely a bug than a plan");

  /** {@code outbox.<name>.dead-retention}: unset, dead messages stay until an operator retries or discards them. */
  public static final Setting<Duration> DEAD_RETENTION = Setting.duration("dead-retention", Duration.ofDays(3650))
      .withDefault(null, "off: dead messages stay until retried or discarded")
      .meaning("dead messages that died longer ago than this (their last attempt, `last_attempt_at`) are removed on"
          + " the `retention-interval` schedule, by one node at a time, `admin-chunk-size` a transaction");
  /** {@code outbox.<name>.retention-interval}. */
  public static final Setting<Duration> RETENTION_INTERVAL = Setting.duration("retention-interval",
      Duration.ofSeconds(1), MAX_DURATION).withDefault(Duration.ofHours(1))
      .meaning("how often a node runs `dead-retention` (each run reads the outbox's table once, in id order); the"
          + " first run comes at start");

  /** {@code outbox.worker}. */
  public static final Setting<String> WORKER = Setting.oneOf("worker", "worker mode",
      choices("executor", "ejb-timer", "none")).withDefault("executor")
      .meaning("`executor`: a Jakarta Concurrency `ManagedScheduledExecutorService` (a plain daemon pool in Java SE);"
          + " `ejb-timer`: the EJB timer service; `none`: this node only publishes");
  /** {@code outbox.worker.executor}. */
  public static final Setting<String> WORKER_EXECUTOR = Setting.jndiName("worker.executor")
      .withDefault("java:comp/DefaultManagedScheduledExecutorService")
      .meaning("JNDI name of the executor of the `executor` mode");
  /** {@code outbox.worker.threads}. */
  public static final Setting<Integer> WORKER_THREADS = Setting.integer("worker.threads", 1, 256)
      .withDefault(null, "one per partition, at most 16")
      .meaning("size of the plain pool used when there is no JNDI (Java SE)");
  /** {@code outbox.datasource}. */
  public static final Setting<String> DATASOURCE = Setting.jndiName("datasource")
      .withDefault(null, "the data source behind the application's EntityManager")
      .meaning("JNDI name of the JTA data source Outboxer writes through (the one the persistence unit uses); or"
          + " produce an `@OutboxPersistence DataSource`");
  /** {@code outbox.schema}. */
  public static final Setting<String> SCHEMA = Setting.oneOf("schema", "schema mode",
      choices("validate", "create", "none")).withDefault("validate")
      .meaning("`validate`: check the tables at start-up and fail the deployment naming what is missing; `create`:"
          + " create a missing schema (development, demos); `none`: trust it");
  /** {@code outbox.wake-up}. */
  public static final Setting<String> WAKE_UP = Setting.oneOf("wake-up", "wake-up mode", choices("notify", "poll"))
      .withDefault("notify")
      .meaning("`notify`: on PostgreSQL, a publish wakes the workers of every node at once (LISTEN/NOTIFY); `poll`:"
          + " other nodes find new messages at their next poll");
  /** {@code outbox.database}. */
  public static final Setting<String> DATABASE = Setting.oneOf("database", "supported database",
      databases()).withDefault(null, "detected")
      .meaning("the database's SQL dialect; set it if detection fails");
  /** {@code outbox.metrics.refresh-interval}. */
  public static final Setting<Duration> METRICS_REFRESH = Setting.duration("metrics.refresh-interval", MAX_DURATION)
      .withDefault(Duration.ofSeconds(5)).meaning("how often the workers re-count the backlog behind the gauges");
  /** {@code outbox.node-id}. */
  public static final Setting<String> NODE_ID = Setting.text("node-id").range("at most 200 characters")
      .withDefault(null, "the JVM's name, pid@host")
      .meaning("written as the owner of the partitions this node claims, and with rule changes");

  /** The global keys, {@code outbox.*}. */
  public static final SettingsDeclaration GLOBAL = SettingsDeclaration.of("Outboxer", "outbox-cdi", "outbox.",
      WORKER, WORKER_EXECUTOR, WORKER_THREADS, DATASOURCE, SCHEMA, WAKE_UP, DATABASE, METRICS_REFRESH, NODE_ID);

  /** Every outbox's keys, {@code outbox.<name>.*}. */
  public static final SettingsDeclaration OUTBOX = SettingsDeclaration.of("outbox", "outbox-cdi",
      "outbox." + ConfigKeyNames.NAME + ".", RELAY, ORDERING, PARTITIONS, MAX_ATTEMPTS, DEAD_ON, BACKOFF_MIN, BACKOFF_MAX,
      SERIALIZE_WRITES, BATCH_SIZE, POLL_INTERVAL, MAX_POLL_INTERVAL, RELAY_TIMEOUT, TRANSACTION_TIMEOUT,
      WORKER_TRANSACTION, MAX_PAYLOAD_SIZE, MAX_DELAY, ADMIN_CHUNK_SIZE, DEAD_RETENTION, RETENTION_INTERVAL);

  /** For {@link java.util.ServiceLoader}: the catalog of the core's keys. */
  public CoreSettings() {}

  @Override
  public List<SettingsDeclaration> declarations() {
    return List.of(OUTBOX, GLOBAL);
  }

  private static final Pattern CLASS_NAME = Pattern.compile(
      "(\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*\\.)*\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*");

  /** Each element must at least look like a class's binary name ({@code com.acme.Outer$Inner}). */
  private static Optional<String> classNames(List<String> names) {
    for (String name : names) {
      if (!CLASS_NAME.matcher(name).matches()) {
        return Optional.of("has '" + name + "', which is not a fully-qualified class name: list exception classes"
            + " such as java.io.FileNotFoundException, separated by commas");
      }
    }
    return Optional.empty();
  }

  private static Map<String, Ordering> orderings() {
    Map<String, Ordering> choices = new LinkedHashMap<>();
    for (Ordering ordering : Ordering.values()) {
      choices.put(ordering.configValue(), ordering);
    }
    return choices;
  }

  /** The words of {@link SupportedDatabase}, in its order. */
  private static Map<String, String> databases() {
    Map<String, String> choices = new LinkedHashMap<>();
    for (SupportedDatabase database : SupportedDatabase.values()) {
      choices.put(database.configValue(), database.configValue());
    }
    return choices;
  }

  private static Map<String, String> choices(String... words) {
    Map<String, String> choices = new LinkedHashMap<>();
    for (String word : words) {
      choices.put(word, word);
    }
    return choices;
  }
}
