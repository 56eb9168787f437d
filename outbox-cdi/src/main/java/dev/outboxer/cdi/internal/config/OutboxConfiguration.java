package dev.outboxer.cdi.internal.config;

import dev.outboxer.UnknownOutboxException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Everything Outboxer read from MicroProfile Config, validated.
 *
 * @param workerExecutor JNDI name of the ManagedScheduledExecutorService; empty means the default
 *     one, or a plain pool where JNDI is not available
 * @param workerThreads size of the plain pool used in Java SE; 0 means one per partition, at most 16
 * @param database the configured database kind; empty means detect it
 * @param dataSource the JNDI name of the JTA data source to write through ({@code outbox.datasource});
 *     empty means a {@code @OutboxPersistence} DataSource bean, or the EntityManager
 * @param notifyWakeUp whether publishes wake the workers of other nodes through the database
 *     ({@code outbox.wake-up=notify}, PostgreSQL only) rather than leaving them to their next poll
 */
public record OutboxConfiguration(
    Map<String, OutboxSettings> outboxes,
    WorkerMode workerMode,
    Optional<String> workerExecutor,
    int workerThreads,
    Optional<String> database,
    Duration metricsRefresh,
    String nodeId,
    SchemaMode schema,
    Optional<String> dataSource,
    boolean notifyWakeUp) {

  public OutboxConfiguration {
    outboxes = Map.copyOf(outboxes);
  }

  public Optional<OutboxSettings> find(String outbox) {
    return outbox == null ? Optional.empty() : Optional.ofNullable(outboxes.get(outbox));
  }

  /** @throws UnknownOutboxException naming the outbox and the configured ones */
  public OutboxSettings require(String outbox) {
    return find(outbox)
        .orElseThrow(
            () ->
                new UnknownOutboxException(
                    "No outbox named '" + outbox + "' is configured: set outbox." + outbox
                        + ".relay to create it. Configured outboxes: "
                        + new TreeMap<>(outboxes).keySet()));
  }
}
