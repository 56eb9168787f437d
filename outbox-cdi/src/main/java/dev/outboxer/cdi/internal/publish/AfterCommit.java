package dev.outboxer.cdi.internal.publish;

import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * What one transaction published, per outbox and partition, acted on once it committed: count the
 * messages and wake the workers of their partitions. One instance per transaction, kept in the
 * registry's resources.
 */
final class AfterCommit implements Synchronization {

  private static final Object RESOURCE_KEY = AfterCommit.class;

  /** Keys are "outbox partition" pairs; values count the messages. */
  private final Map<Map.Entry<String, Integer>, Integer> published = new HashMap<>();
  private final BiConsumer<Map.Entry<String, Integer>, Integer> onCommit;

  private AfterCommit(BiConsumer<Map.Entry<String, Integer>, Integer> onCommit) {
    this.onCommit = onCommit;
  }

  static void record(TransactionSynchronizationRegistry registry, String outbox, int partition,
      BiConsumer<Map.Entry<String, Integer>, Integer> onCommit) {
    AfterCommit actions = (AfterCommit) registry.getResource(RESOURCE_KEY);
    if (actions == null) {
      actions = new AfterCommit(onCommit);
      registry.putResource(RESOURCE_KEY, actions);
      registry.registerInterposedSynchronization(actions);
    }
    actions.published.merge(Map.entry(outbox, partition), 1, Integer::sum);
  }

  @Override
  public void beforeCompletion() {}

  @Override
  public void afterCompletion(int status) {
    if (status == Status.STATUS_COMMITTED) {
      published.forEach(onCommit);
    }
  }
}
