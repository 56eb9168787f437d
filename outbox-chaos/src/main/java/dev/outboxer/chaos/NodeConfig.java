package dev.outboxer.chaos;

import java.util.HashMap;
import java.util.Map;

/**
 * The Outboxer configuration of a chaos node (worker or publisher). Every node of a run gets the
 * same outbox rules: the core persists them and refuses a node that disagrees.
 */
final class NodeConfig {

  static final String OUTBOX = "chaos";
  static final String JMS_FACTORY = "jms/chaosXa";
  static final String JMS_QUEUE = "jms/chaos";
  /** The JMS queue, in the run's own broker. */
  static final String QUEUE_NAME = "outbox.chaos";
  static final String TOPIC = "outbox.chaos";

  private NodeConfig() {}

  static Map<String, String> worker(ChaosSettings settings, String nodeId) {
    Map<String, String> config = outbox(settings);
    config.put("outbox.worker", "executor");
    config.put("outbox.node-id", nodeId);
    return config;
  }

  static Map<String, String> publisher(ChaosSettings settings) {
    Map<String, String> config = outbox(settings);
    config.put("outbox.worker", "none");
    config.put("outbox.node-id", "publisher");
    return config;
  }

  private static Map<String, String> outbox(ChaosSettings settings) {
    Map<String, String> config = new HashMap<>();
    String prefix = "outbox." + OUTBOX + ".";
    config.put(prefix + "relay", settings.relay());
    config.put(prefix + "ordering", "group");
    config.put(prefix + "partitions", Integer.toString(settings.partitions()));
    config.put(prefix + "max-attempts", settings.maxAttempts());
    config.put(prefix + "serialize-writes", "true");
    config.put(prefix + "batch-size", Integer.toString(settings.batchSize()));
    config.put(prefix + "poll-interval", settings.pollInterval());
    config.put(prefix + "max-poll-interval", "1s");
    config.put(prefix + "relay-timeout", settings.relayTimeoutText());
    // Retries come back quickly, so that the run drains soon after the faults stop.
    config.put(prefix + "backoff.min", "200ms");
    config.put(prefix + "backoff.max", "2s");
    if (coreKnowsLease()) {
      config.put(prefix + "transaction-timeout", settings.lease());
    }
    switch (settings.relay()) {
      case "jms" -> {
        config.put(prefix + "jms.connection-factory", JMS_FACTORY);
        config.put(prefix + "jms.destination", JMS_QUEUE);
      }
      case "kafka" -> {
        config.put(prefix + "kafka.topic", TOPIC);
        config.put(prefix + "kafka.bootstrap.servers", settings.broker());
      }
      case "rabbitmq" -> {
        // The machine's RabbitMQ (guest/guest); the orchestrator declared the exchange and its queue.
        config.put(prefix + "rabbitmq.host", "127.0.0.1");
        config.put(prefix + "rabbitmq.exchange", rabbitName(settings));
      }
      default -> {
        // the table relay reads the run's settings itself
      }
    }
    // The backlog gauges re-count the outbox: rarely, the machine is shared.
    config.put("outbox.metrics.refresh-interval", "30s");
    return config;
  }

  /**
   * The RabbitMQ exchange and queue of a run, both of this name: {@code outbox.chaos.} and the
   * outbox database's name, which carries {@code OUTBOXER_TEST_DATABASE_PREFIX}. The machine's
   * RabbitMQ is shared, so runs on other databases (other people's builds) never meet in one queue.
   */
  static String rabbitName(ChaosSettings settings) {
    return QUEUE_NAME + "." + new Databases(settings.database()).outboxDatabaseName();
  }

  /**
   * Whether the core reads {@code outbox.<name>.transaction-timeout} (the claim's lease, coming with
   * fenced claims). It refuses unknown keys, so the key is set only when its declaration exists.
   */
  static boolean coreKnowsLease() {
    try {
      Class.forName("dev.outboxer.spi.CoreSettings").getField("TRANSACTION_TIMEOUT");
      return true;
    } catch (ReflectiveOperationException | LinkageError absent) {
      return false;
    }
  }
}
