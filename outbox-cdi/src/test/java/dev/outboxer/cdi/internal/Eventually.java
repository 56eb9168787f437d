package dev.outboxer.cdi.internal;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Waits for a condition like Awaitility, but fails with a sentence saying what was expected and
 * what the state was at the end, so that a regression test's failure explains itself.
 */
public final class Eventually {

  private Eventually() {}

  public static void until(Duration atMost, String expected, Callable<Boolean> condition, Supplier<String> state) {
    try {
      await().atMost(atMost).pollInterval(Duration.ofMillis(50)).until(condition);
    } catch (ConditionTimeoutException timeout) {
      throw new AssertionError("Not within " + atMost.toSeconds() + "s: " + expected + ". State: " + state.get());
    }
  }
}
