package dev.outboxer.it.support;

import dev.outboxer.OutboxMessage;

/** Published to the test-only outbox "probe". */
public record ProbeMessage(String text) implements OutboxMessage {}
