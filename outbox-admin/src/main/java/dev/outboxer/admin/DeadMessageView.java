package dev.outboxer.admin;

import jakarta.json.bind.annotation.JsonbNillable;
import dev.outboxer.DeadMessage;

/**
 * The JSON answer for one dead message, as {@link dev.outboxer.OutboxAdmin#dead} gives it.
 *
 * @param id the message id (a retried message gets a new one)
 * @param groupKey the group key, or {@code null}
 * @param type the message type
 * @param attempts how many attempts failed
 * @param lastError the last failure
 * @param createdAt when it was published (ISO-8601)
 * @param lastAttemptAt when its last attempt failed (ISO-8601)
 *
 * <p>Properties without a value are written as {@code null}, not left out.
 */
@JsonbNillable
public record DeadMessageView(long id, String groupKey, String type, int attempts, String lastError,
    String createdAt, String lastAttemptAt) {

  static DeadMessageView of(DeadMessage message) {
    return new DeadMessageView(message.id(), message.groupKey(), message.type(), message.attempts(),
        message.lastError(), PartitionView.text(message.createdAt()), PartitionView.text(message.lastAttemptAt()));
  }
}
