/**
 * MicroProfile Health checks for Outboxer: add the {@code outbox-health} jar next to {@code
 * outbox-cdi} and the platform's health endpoints report four checks; without the jar nothing
 * changes. There is nothing to call: the checks are CDI beans found by bean discovery. Everything
 * here is package-private except {@link dev.outboxer.health.OutboxHealthExtension}, which {@link
 * java.util.ServiceLoader} needs public; none of it is API. The check names, their data keys and
 * the configuration keys below are the contract.
 *
 * <h2>Rationale</h2>
 * An outbox fails quietly: the application keeps committing, the messages pile up in a table. An
 * orchestrator should not route traffic to a node where Outboxer has not started, should restart a
 * node whose worker is stuck beyond what the core's own supervisor cures, and may take a node out
 * when the outbox lags further behind than the operator accepts.
 *
 * <h2>The checks</h2>
 * <ul>
 *   <li><b>Readiness {@code outbox-started}</b>: UP once {@link dev.outboxer.OutboxAdmin#started()}
 *       (schema checked, rules in line, workers started), DOWN before and once shutdown began.
 *       Data: one entry per outbox, for example {@code "orders": "started, 2 partition worker(s) on
 *       this node"} or {@code "started, publish only on this node"}. Reads no database.</li>
 *   <li><b>Liveness {@code outbox-workers}</b>: DOWN when a partition worker of this node has not
 *       run for longer than its stall time while its partition has messages ready ({@code pending -
 *       retrying > 0}). "Not run" counts from the end of its last run or, while it runs, from the
 *       start of the current one: a batch longer than the stall time counts as a stall. Data: {@code
 *       "workers"} (how many this node runs), {@code "stalled": "orders/0, orders/2"} and per stalled
 *       partition {@code "orders.partition-0"} with how long and how many messages wait. UP on a node
 *       without workers, and before start and after shutdown (readiness covers those).</li>
 *   <li><b>Readiness {@code outbox-lag}</b>: per outbox {@code "<name>.oldest-pending-age-seconds"}
 *       and {@code "<name>.pending"}; DOWN only if {@code outbox.<name>.health.max-lag} is set and
 *       the oldest pending message is older (data {@code "<name>.lagging"}), or the lag cannot be
 *       read for such an outbox (data {@code "<name>.error"}). Not read before start.</li>
 *   <li><b>Readiness {@code outbox-prepared-transactions}</b>: per outbox {@code
 *       "<name>.held-partitions"} ({@code "none"} or the partition numbers, {@code "1, 3"}) and per
 *       held partition {@code "<name>.partition-<n>"} naming the prepared (two-phase) transaction
 *       that holds it (gid, since when, database user and database) and the way out; {@code
 *       "<name>.error"} if it could not be read. Always UP: a held partition is claimed by no worker
 *       of any node until its transaction is committed or rolled back, but the other partitions
 *       and publishing work, and the lock is the cluster's, so DOWN would take every node out of
 *       service (as liveness: restart them all) without finishing the transaction. For an alert,
 *       set {@code outbox.<name>.health.max-lag}: the held partition's messages age and {@code
 *       outbox-lag} goes DOWN, and this check's data says why. PostgreSQL only (other databases never
 *       report a held partition). Not read before start.</li>
 * </ul>
 *
 * <p>A check whose CDI container is gone answers UP with the only data {@code "deployment": "not
 * running: ..."}: WildFly 39 keeps calling the checks of a deployment that failed CDI validation
 * until a reload, and the deployment is the server's to report. The checks are therefore {@code
 * Dependent} beans, not client proxies.
 *
 * <h2>Configuration (MicroProfile Config)</h2>
 * <ul>
 *   <li>{@code outbox.health.worker-stall}: how long a worker may go without running while messages
 *       wait. Default: 60s, raised for an outbox whose own timing needs more to its {@code
 *       relay-timeout} + {@code max-poll-interval} + 10s (the longest a healthy worker goes without
 *       starting or ending a run, plus a margin). A configured value must exceed that sum for every
 *       outbox, or the deployment fails.</li>
 *   <li>{@code outbox.health.refresh-interval}: how long a backlog read from the database is reused
 *       by the checks. Default: 5s.</li>
 *   <li>{@code outbox.<name>.health.max-lag}: the lag above which {@code outbox-lag} is DOWN. Default:
 *       none (never DOWN for lag).</li>
 * </ul>
 * Durations are written as everywhere in Outboxer ({@code 500ms}, {@code 30s}, {@code 5m}, {@code
 * 2h}, {@code 1d}, ISO-8601 {@code PT30S}). Every key is checked at deployment: a bad value, a key
 * of an outbox that does not exist or a misspelt key fails the deployment with an {@link
 * dev.outboxer.OutboxConfigurationException} that names the key and the value. In a CDI container
 * that runs no portable extension (Quarkus' ArC) the same check runs at CDI's {@code Startup} event,
 * before Outboxer's own start, and fails the start instead.
 *
 * <h2>What is guaranteed, what is not</h2>
 * <ul>
 *   <li>A probe reads the database at most once per refresh interval per outbox (partitions for
 *       liveness, and only when a worker is past its stall time; counts for lag; the prepared
 *       transactions, a join of the outbox's partition rows with {@code pg_prepared_xacts}), on the probe's
 *       thread; a read that fails is reused for the interval too. A database that hangs can make a
 *       probe slow (the probe then times out, which an orchestrator counts as a failure).</li>
 *   <li>Liveness sees this node's workers only, from memory; other nodes report their own. If the
 *       backlog cannot be read it stays UP and says so: a restart does not cure a database.</li>
 *   <li>Lag is the outbox's, counted over the whole cluster: with a {@code max-lag}, every node
 *       that sets it goes DOWN together. Set it only on nodes that should stop taking traffic when
 *       the outbox lags.</li>
 *   <li>The checks need Outboxer's core ({@code outbox-cdi}): they use {@link
 *       dev.outboxer.OutboxAdmin}.</li>
 * </ul>
 */
package dev.outboxer.health;
