package dev.outboxer.it.kafka;

import dev.outboxer.OutboxMessage;

/** An event of the {@code events} outbox; its group is the record key on the topic. */
public record KafkaEvent(String group, int sequence) implements OutboxMessage {

  @Override
  public String groupKey() {
    return group;
  }
}
