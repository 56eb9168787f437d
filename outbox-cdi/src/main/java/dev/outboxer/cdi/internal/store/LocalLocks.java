package dev.outboxer.cdi.internal.store;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Named locks of this JVM, taken without waiting, for the databases that serve one process (H2 and
 * SQLite, see {@link Dialect}): where every node of the outbox is in this JVM, a lock here is the
 * cluster's. Not tied to a thread, so that whoever took a lock gives it back, on any thread.
 *
 * <p>Not a lock across processes: two JVMs on one H2 server database would each take their own.
 */
final class LocalLocks {

  /** The outboxes whose dead-retention runs a chunk now. */
  static final LocalLocks RETENTION = new LocalLocks();

  private final Set<String> held = ConcurrentHashMap.newKeySet();

  private LocalLocks() {}

  /** @return whether the lock was free and is now held */
  boolean tryTake(String name) {
    return held.add(name);
  }

  void release(String name) {
    held.remove(name);
  }
}
