package dev.outboxer.cdi.internal.config;

import java.time.Duration;

/** Every configuration key Outboxer reads, declared once, with its default. */
public final class ConfigKeys {

  public static final String PREFIX = "outbox.";

  // Per outbox: outbox.<name>.<key>
  public static final String RELAY = "relay";
  public static final String ORDERING = "ordering";
  public static final String PARTITIONS = "partitions";
  public static final String MAX_ATTEMPTS = "max-attempts";
  public static final String BACKOFF_MIN = "backoff.min";
  public static final String BACKOFF_MAX = "backoff.max";
  public static final String SERIALIZE_WRITES = "serialize-writes";
  public static final String BATCH_SIZE = "batch-size";
  public static final String POLL_INTERVAL = "poll-interval";
  public static final String MAX_POLL_INTERVAL = "max-poll-interval";
  public static final String RELAY_TIMEOUT = "relay-timeout";
  public static final String TRANSACTION_TIMEOUT = "transaction-timeout";
  public static final String MAX_PAYLOAD_SIZE = "max-payload-size";

  public static final String DEFAULT_ORDERING = "group";
  public static final int DEFAULT_PARTITIONS = 1;
  public static final String INFINITY = "infinity";
  public static final Duration DEFAULT_BACKOFF_MIN = Duration.ofSeconds(1);
  public static final Duration DEFAULT_BACKOFF_MAX = Duration.ofSeconds(60);
  public static final int DEFAULT_BATCH_SIZE = 100;
  public static final int MAX_BATCH_SIZE = 10_000;
  public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(500);
  public static final Duration DEFAULT_MAX_POLL_INTERVAL = Duration.ofSeconds(5);
  public static final Duration DEFAULT_RELAY_TIMEOUT = Duration.ofSeconds(30);
  public static final Duration DEFAULT_TRANSACTION_TIMEOUT = Duration.ofSeconds(60);
  public static final Duration MAX_RELAY_TIMEOUT = Duration.ofHours(1);
  public static final Duration MAX_TRANSACTION_TIMEOUT = Duration.ofHours(2);
  /** The longest duration any key accepts: beyond it, arithmetic on times would overflow. */
  public static final Duration MAX_DURATION = Duration.ofDays(365);

  // Global keys
  public static final String WORKER = "outbox.worker";
  public static final String WORKER_EXECUTOR = "outbox.worker.executor";
  public static final String WORKER_THREADS = "outbox.worker.threads";
  public static final String DATABASE = "outbox.database";
  public static final String METRICS_REFRESH = "outbox.metrics.refresh-interval";
  public static final String NODE_ID = "outbox.node-id";
  public static final String SCHEMA = "outbox.schema";
  public static final String DATASOURCE = "outbox.datasource";
  public static final String WAKE_UP = "outbox.wake-up";

  public static final String DEFAULT_WORKER_EXECUTOR = "java:comp/DefaultManagedScheduledExecutorService";
  public static final Duration DEFAULT_METRICS_REFRESH = Duration.ofSeconds(5);

  /** Outbox names: used in keys, so no dots, and in the database, so bounded. */
  public static final String OUTBOX_NAME_PATTERN = "[A-Za-z0-9_-]{1,100}";

  private ConfigKeys() {}

  public static String key(String outbox, String key) {
    return PREFIX + outbox + "." + key;
  }
}
