package dev.outboxer.cdi.internal.publish;

import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.util.HashMap;
import java.util.Map;

/**
 * What one transaction published, per outbox and partition, acted on around its commit: just
 * before it, the idle workers of those partitions may start claiming them; once it completed, the
 * messages are counted and the workers woken. One instance per transaction, kept in the registry's
 * resources.
 */
final class AfterCommit implements Synchronization {

  /** What is done around the commit, per "outbox partition" pair. */
  interface Hooks {
    /**
     * Just before the commit; returns what to call when the transaction completed (told whether it
     * committed), or null.
     */
    Completion beforeCommit(Map.Entry<String, Integer> partition);

    /** After the commit, with the number of messages published to the partition; {@code primed} as {@link Completion} returned. */
    void committed(Map.Entry<String, Integer> partition, int count, boolean primed);
  }

  /** Told once the transaction completed; true if the partition's worker will see the commit without a wake-up. */
  interface Completion {
    boolean completed(boolean committed);
  }

  private static final Object RESOURCE_KEY = AfterCommit.class;

  /** Keys are "outbox partition" pairs; values count the messages. */
  private final Map<Map.Entry<String, Integer>, Integer> published = new HashMap<>();
  private final Map<Map.Entry<String, Integer>, Completion> primed = new HashMap<>();
  private final Hooks hooks;

  private AfterCommit(Hooks hooks) {
    this.hooks = hooks;
  }

  static void record(TransactionSynchronizationRegistry registry, String outbox, int partition, Hooks hooks) {
    AfterCommit actions = (AfterCommit) registry.getResource(RESOURCE_KEY);
    if (actions == null) {
      actions = new AfterCommit(hooks);
      registry.putResource(RESOURCE_KEY, actions);
      registry.registerInterposedSynchronization(actions);
    }
    actions.published.merge(Map.entry(outbox, partition), 1, Integer::sum);
  }

  @Override
  public void beforeCompletion() {
    published.keySet().forEach(partition -> {
      Completion completion = hooks.beforeCommit(partition);
      if (completion != null) {
        primed.put(partition, completion);
      }
    });
  }

  @Override
  public void afterCompletion(int status) {
    boolean committed = status == Status.STATUS_COMMITTED;
    published.forEach((partition, count) -> {
      Completion completion = primed.get(partition);
      // Always told, also after a rollback: a primed worker must not wait for a commit that will not come.
      boolean seen = completion != null && completion.completed(committed);
      if (committed) {
        hooks.committed(partition, count, seen);
      }
    });
  }
}
