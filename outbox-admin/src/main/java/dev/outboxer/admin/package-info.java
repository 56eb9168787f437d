/**
 * Outboxer's admin API and operator console: a Jakarta REST application under {@code
 * /outbox-admin} that shows each outbox's backlog, partitions, blocked groups and dead messages,
 * and retries or discards dead messages.
 *
 * <h2>Rationale</h2>
 * Operators ask three questions: is it healthy, why is this group stuck, and how do I get these
 * messages moving again. {@link dev.outboxer.OutboxAdmin} answers them in Java; this module answers
 * them over HTTP and in a browser, so no application has to expose {@code OutboxAdmin} itself.
 *
 * <h2>How it works</h2>
 * Add the jar to the WAR next to {@code outbox-cdi}. {@link dev.outboxer.admin.OutboxAdminApplication}
 * mounts the JSON API at {@code /outbox-admin/api} and the console at {@code /outbox-admin/}. Every
 * API call needs an authenticated caller in the role {@code outbox-admin} (key {@code
 * outbox.admin.role}): 401 without credentials, 403 without the role. Calls that change something
 * also need the header {@code X-Outbox-Admin: 1}, which a cross-site form or link cannot send. Each
 * change is logged at INFO on the logger {@code dev.outboxer.admin.audit}, naming the caller.
 *
 * <p>Input is read strictly, after the caller is checked: a path id, paging parameter or bulk body
 * that is not exactly what is asked for is refused (400, 413, 415) and never coerced into another
 * message id or group key. Every refusal, the server's own 404 and 405 included, and an unexpected
 * failure (500, with an incident id and no internals) is answered as a {@link
 * dev.outboxer.admin.Problem} in JSON.
 *
 * <p>The JSON types in this package ({@link dev.outboxer.admin.OutboxView} and the like) are the
 * shapes of the API's answers; the Java classes are public for JSON-B only.
 */
package dev.outboxer.admin;
