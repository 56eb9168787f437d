package dev.outboxer.admin;

/**
 * The JSON answer of a call that failed: what went wrong and, where there is one, how to fix it.
 *
 * @param status the HTTP status
 * @param error what went wrong
 */
public record Problem(int status, String error) {}
