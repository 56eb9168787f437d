package dev.outboxer.admin;

/**
 * The JSON answer of a retry or discard.
 *
 * @param action {@code retry} or {@code discard}
 * @param changed how many messages were retried or discarded
 */
public record ChangeResult(String action, int changed) {}
