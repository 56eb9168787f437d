package dev.outboxer.cdi.internal.publish;

import dev.outboxer.OutboxException;
import dev.outboxer.spi.MessageConstraints;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Per outbox, what a message may be: the relay's constraints and the largest payload, the smallest
 * of the database's limit, the relay's and {@code outbox.<name>.max-payload-size}. Set at start-up:
 * before that (a node started while its database was down waits for it) a publish is refused with
 * the reason, rather than written unchecked.
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
  private volatile String notStarted;

  public void set(String outbox, Limits outboxLimits) {
    limits.put(outbox, outboxLimits);
  }

  /** Why Outboxer has not set the limits yet (null once it started or if it is not known to wait). */
  public void notStarted(String reason) {
    notStarted = reason;
  }

  /**
   * The outbox's limits.
   *
   * @throws OutboxException while Outboxer waits to start (for the database), naming the reason
   */
  public Limits of(String outbox) {
    // Checked before the limits: a start-up that failed half-way may have set some outboxes' limits already.
    String reason = notStarted;
    if (reason != null) {
      throw new OutboxException("Outbox '" + outbox + "': " + reason + (reason.endsWith(".") ? "" : ".")
          + " Nothing was written.");
    }
    return limits.getOrDefault(outbox, NONE);
  }
}
