package dev.outboxer.chaos;

import dev.outboxer.OutboxMessage;
import dev.outboxer.Outboxed;

/**
 * The message of the chaos runs: which group it belongs to, and which publisher transaction and
 * position wrote it (for reading logs; the ledger is the truth).
 *
 * @param group the group key
 * @param tx the publisher's transaction number
 * @param index the position in that transaction
 */
@Outboxed(NodeConfig.OUTBOX)
public record ChaosEvent(String group, long tx, int index) implements OutboxMessage {
  @Override
  public String groupKey() {
    return group;
  }
}
