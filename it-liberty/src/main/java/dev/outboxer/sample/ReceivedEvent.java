package dev.outboxer.sample;

import java.time.Instant;

/**
 * A JMS message as the sample's consumer received it, with the properties the JMS relay sets.
 *
 * @param queue {@code orders} or {@code audit}
 * @param outboxId the {@code outboxId} property: the message id, increasing within a group
 * @param groupKey the {@code outboxGroupKey} property, {@code null} for ungrouped messages
 * @param jmsxGroupId the {@code JMSXGroupID} property (the group key again, for brokers with message groups)
 * @param type {@code JMSType}
 * @param body the JSON payload
 * @param redelivered {@code JMSRedelivered}
 */
public record ReceivedEvent(String queue, long outboxId, String outbox, String groupKey, String jmsxGroupId, String type,
    String body, boolean redelivered, Instant receivedAt) {}
