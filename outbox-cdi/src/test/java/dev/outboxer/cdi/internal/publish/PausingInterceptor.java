package dev.outboxer.cdi.internal.publish;

import dev.outboxer.OutboxMessage;
import dev.outboxer.spi.PublishInterceptor;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * A publish interceptor that, once armed, holds the next publish until a condition holds: publish
 * calls interceptors after it checked that the transaction is active and before it writes, so a
 * test can end the transaction in exactly that gap. Inert unless armed.
 */
@ApplicationScoped
public class PausingInterceptor implements PublishInterceptor {

  private static volatile BooleanSupplier pauseUntil;

  /** Holds the next publish (one) until the condition holds, at most 30 s. */
  static void pauseNextPublishUntil(BooleanSupplier condition) {
    pauseUntil = condition;
  }

  static void disarm() {
    pauseUntil = null;
  }

  @Override
  public Map<String, String> headers(String outbox, OutboxMessage message) {
    BooleanSupplier condition = pauseUntil;
    if (condition != null) {
      pauseUntil = null;
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
        try {
          Thread.sleep(20);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    return Map.of();
  }
}
