package dev.outboxer.cdi.internal.publish;

import dev.outboxer.spi.MessageConstraints;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per outbox, what a message may be: the relay's constraints and the largest payload, the smallest
 * of the database's limit, the relay's and {@code outbox.<name>.max-payload-size}. Set at start-up.
 */
@ApplicationScoped
public class MessageLimits {

  /**
   * @param constraints the relay's destination rules
   * @param maxPayloadBytes the largest payload accepted
   * @param payloadLimitSource what sets that limit, for the error message
   */
  public record Limits(MessageConstraints constraints, long maxPayloadBytes, String payloadLimitSource) {}

  private static final Limits NONE = new Limits(MessageConstraints.NONE, Long.MAX_VALUE, "no limit");

  private final Map<String, Limits> limits = new ConcurrentHashMap<>();

  public void set(String outbox, Limits outboxLimits) {
    limits.put(outbox, outboxLimits);
  }

  public Limits of(String outbox) {
    return limits.getOrDefault(outbox, NONE);
  }
}
