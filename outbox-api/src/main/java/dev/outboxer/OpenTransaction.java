package dev.outboxer;

import java.time.Duration;
import java.time.Instant;

/**
 * A transaction open on another session of the outbox's database, as the database shows it
 * (PostgreSQL's {@code pg_stat_activity}). While it is open, PostgreSQL keeps every row version it
 * might still see (the "xmin horizon"): the rows the workers delete stay in the table and its
 * indexes as dead versions, and each read walks further, so draining slows down until it ends.
 * Nothing is lost or reordered meanwhile. The way out: end it (commit or roll back, or {@code
 * SELECT pg_terminate_backend(pid)}), and set {@code idle_in_transaction_session_timeout} for
 * sessions that forget to.
 *
 * <p>What it does not guarantee: a database user that may not see other users' sessions (neither a
 * superuser nor a member of {@code pg_read_all_stats}) sees their transactions without user,
 * application, client, state or query (null or empty here), and may not see them at all.
 *
 * @param pid the session's process id ({@code pg_stat_activity.pid})
 * @param user the database user of the session
 * @param application the session's {@code application_name}
 * @param client the client's address, or {@code local} for a Unix socket
 * @param state the session's state, such as {@code idle in transaction}
 * @param since when the transaction began (the database's clock)
 * @param age how long it has been open, by the database's clock
 * @param query the session's last (or running) statement, at most 200 characters
 */
public record OpenTransaction(int pid, String user, String application, String client, String state,
    Instant since, Duration age, String query) {}
