package dev.outboxer.testing;

import java.lang.reflect.Method;
import java.util.Set;

/**
 * Wakes Outboxer's workers after a test stepped the clock. The workers are internal to outbox-cdi,
 * which this module does not compile against (outbox-cdi's own tests use this module), so they are
 * found by name; {@code OutboxerExtensionTest} fails if the name or method changes.
 */
final class WorkerWake {

  static final String WORKERS_CLASS = "dev.outboxer.cdi.internal.work.Workers";

  private WorkerWake() {}

  static void wakeAll(OutboxTestContainer container, Set<String> outboxes) {
    Object workers;
    Method wakeAll;
    try {
      Class<?> type = Class.forName(WORKERS_CLASS, true, Thread.currentThread().getContextClassLoader());
      workers = container.select(type);
      wakeAll = type.getMethod("wakeAll", String.class);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("This outbox-testing does not match the outbox-cdi on the class path: "
          + WORKERS_CLASS + ".wakeAll(String) is missing. Use the same version of both.", e);
    }
    for (String outbox : outboxes) {
      try {
        wakeAll.invoke(workers, outbox);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("Could not wake the workers of outbox " + outbox, e);
      }
    }
  }
}
