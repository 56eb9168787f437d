package dev.outboxer.sample;

import dev.outboxer.OutboxMessage;

/**
 * Published to the {@code audit} outbox (ordering {@code total}, relayed to the JMS queue
 * {@code jms/auditEvents}) with the explicit form {@code outbox.publish("audit", entry)}: no
 * {@code @Outboxed} annotation, no group key. The audit trail keeps one order across all orders.
 */
public record AuditEntry(long orderId, String customer, String action) implements OutboxMessage {}
