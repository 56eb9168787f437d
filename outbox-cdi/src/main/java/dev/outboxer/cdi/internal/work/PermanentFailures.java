package dev.outboxer.cdi.internal.work;

import dev.outboxer.cdi.internal.config.OutboxSettings;
import dev.outboxer.spi.CoreSettings;
import dev.outboxer.spi.Failures;
import dev.outboxer.spi.PermanentRelayFailure;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * Tells whether a relay's failure is permanent: a {@link PermanentRelayFailure}, or of a class
 * listed in {@code outbox.<name>.dead-on} (or a subclass of one), the failure itself or one of its
 * causes. Classes are compared by name along each throwable's superclasses, so a class loaded
 * twice (by a relay module's loader and by the application's) still matches.
 *
 * <p>Looks at the same causes as {@link Failures}: at most {@value Failures#MAX_DEPTH} below the
 * failure, each once (a cycle ends there), a {@code getCause()} that throws ending the chain.
 */
final class PermanentFailures {

  /** The prefix of a permanent failure's stored text; the admin console and the event show it as it is. */
  static final String PREFIX = "permanent: ";

  private PermanentFailures() {}

  /**
   * @param failure the relay's failure (reported or thrown), never a stand-in the core made
   * @return why it is permanent ({@code "java.io.FileNotFoundException matched outbox.orders.dead-on
   *     (java.io.IOException)"}, {@code "the relay marked it permanent"}), or {@code null} if it is not
   */
  static String reason(Throwable failure, OutboxSettings settings) {
    List<String> deadOn = settings.deadOn();
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    Throwable current = failure;
    for (int depth = 0; current != null && depth <= Failures.MAX_DEPTH && seen.add(current); depth++) {
      if (current instanceof PermanentRelayFailure) {
        return "the relay marked it permanent";
      }
      String listed = listedType(current.getClass(), deadOn);
      if (listed != null) {
        String actual = current.getClass().getName();
        return actual + " matched " + settings.key(CoreSettings.DEAD_ON)
            + (actual.equals(listed) ? "" : " (" + listed + ")");
      }
      current = causeOf(current);
    }
    return null;
  }

  /**
   * @return the stored text of a permanent failure: the prefix, the reason and the failure's description, at most
   *     {@value Failures#DEFAULT_MAX_LENGTH} characters
   */
  static String text(String reason, Throwable failure) {
    return Failures.printable(PREFIX + reason + ": " + Failures.describe(failure), Failures.DEFAULT_MAX_LENGTH);
  }

  /** The listed name that {@code type} is or extends; {@code null} if none. */
  private static String listedType(Class<?> type, List<String> deadOn) {
    for (Class<?> c = type; c != null && !deadOn.isEmpty(); c = c.getSuperclass()) {
      if (deadOn.contains(c.getName())) {
        return c.getName();
      }
    }
    return null;
  }

  private static Throwable causeOf(Throwable failure) {
    try {
      return failure.getCause();
    } catch (Throwable broken) {
      return null;
    }
  }
}
