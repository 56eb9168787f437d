package dev.outboxer.sample;

/**
 * The outcome of placing an order: the order's id and the ids of the three messages published with
 * it (in the {@code orders}, {@code audit} and {@code shipping} outboxes).
 */
public record PlacedOrder(long orderId, String customer, String item, int quantity, String via,
    long orderPlacedMessageId, long auditMessageId, long shipmentMessageId) {}
