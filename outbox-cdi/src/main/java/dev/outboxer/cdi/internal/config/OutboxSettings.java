package dev.outboxer.cdi.internal.config;

import dev.outboxer.Ordering;
import dev.outboxer.spi.CoreSettings;
import dev.outboxer.spi.Setting;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The validated configuration of one outbox.
 *
 * @param maxAttempts failures after which a message dies; {@link #UNLIMITED_ATTEMPTS} for
 *     {@code infinity}. A long, so that "infinity" is just a number no attempt counter reaches.
 * @param transactionTimeout the timeout of a worker's batch transaction, which is also how long a
 *     claim of a partition lasts at most
 * @param deadOn the fully-qualified names of the exception classes whose failures are permanent ({@code
 *     dead-on}), each checked at start to name a {@link Throwable} class
 * @param maxPayloadSize the configured payload limit in bytes, {@link Long#MAX_VALUE} if not set
 * @param maxDelay how far ahead a message's {@code notBefore} may lie at publish
 * @param adminChunkSize messages an admin operation outside a transaction changes per transaction, and
 *     dead-retention per transaction
 * @param deadRetention how long a dead message is kept after it died; null to keep it until an
 *     operator retries or discards it
 * @param retentionInterval how often this node runs dead-retention (when {@code deadRetention} is set)
 * @param workerTransactionAlwaysJta {@code worker-transaction=jta}: the batches run in JTA
 *     transactions even for a relay that does not use the worker's transaction
 * @param relayProperties keys under {@code outbox.<name>.<relay>.}, prefix removed
 */
public record OutboxSettings(
    String name,
    String relay,
    Ordering ordering,
    int partitions,
    long maxAttempts,
    List<String> deadOn,
    Duration backoffMin,
    Duration backoffMax,
    boolean serializeWrites,
    int batchSize,
    Duration pollInterval,
    Duration maxPollInterval,
    Duration relayTimeout,
    Duration transactionTimeout,
    long maxPayloadSize,
    Duration maxDelay,
    int adminChunkSize,
    Duration deadRetention,
    Duration retentionInterval,
    boolean workerTransactionAlwaysJta,
    Map<String, String> relayProperties) {

  public static final long UNLIMITED_ATTEMPTS = Long.MAX_VALUE;

  public OutboxSettings {
    deadOn = List.copyOf(deadOn);
    relayProperties = Map.copyOf(relayProperties);
  }

  public boolean unlimitedAttempts() {
    return maxAttempts == UNLIMITED_ATTEMPTS;
  }

  /**
   * @param key a key under the outbox's prefix
   * @return {@code outbox.<name>.<key>}
   */
  public String key(String key) {
    return ConfigKeys.key(name, key);
  }

  /**
   * @param setting one of {@link CoreSettings#OUTBOX}'s settings
   * @return its full key for this outbox: {@code outbox.orders.partitions}
   */
  public String key(Setting<?> setting) {
    return ConfigKeys.key(name, setting);
  }

  /** The delay before retry number {@code failures + 1}: doubling from backoff.min, capped at backoff.max. */
  public Duration backoffAfter(long failures) {
    return Durations.doubling(backoffMin, backoffMax, failures);
  }
}
