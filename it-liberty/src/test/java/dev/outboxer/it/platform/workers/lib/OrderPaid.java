package dev.outboxer.it.platform.workers.lib;

/** An outbox-style payload: the library serialises records like this one with JSON-B by default. */
public record OrderPaid(long orderId, String currency) {
}
