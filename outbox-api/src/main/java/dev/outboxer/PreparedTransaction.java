package dev.outboxer;

import java.time.Instant;

/**
 * A prepared (two-phase) transaction that holds a partition: its first phase ended, its second
 * ({@code COMMIT PREPARED} or {@code ROLLBACK PREPARED}) has not come, typically because the
 * process that ran it died or lost its database session between the two phases. Until one of the
 * two comes, the partition's row stays locked and no worker of any node can claim the partition:
 * its groups wait. Nothing is lost meanwhile.
 *
 * <p>The way out: the transaction manager of the process that prepared it finishes it at its next
 * recovery pass, once the process runs again and reaches the database (Narayana: every two minutes
 * by default). The partition's {@link PartitionStatus#owner() owner} does not name that process: it
 * is the last <i>committed</i> claim, the prepared one is not committed.
 * If that node is gone for good, or its transaction manager gave the branch up (pgjdbc reports a
 * terminated session as {@code XAER_RMERR}; configure {@code
 * dev.outboxer.postgresql.RecoverablePGXADataSource} to prevent that), check the other resources
 * of the transaction (did the broker receive the batch?), then run {@code COMMIT PREPARED 'gid'}
 * or {@code ROLLBACK PREPARED 'gid'} in the database, as its owner or a superuser. Rolling back a
 * batch whose messages the broker already has means they go out again (at least once); committing
 * one the broker does not have loses them.
 *
 * <p>Known on PostgreSQL only (from {@code pg_prepared_xacts}); other databases report none.
 *
 * @param gid the transaction's global id as the database names it ({@code
 *     pg_prepared_xacts.gid}); pgjdbc writes it as {@code formatId_base64(globalId)_base64(branch)}
 * @param preparedAt when it was prepared
 * @param owner the database user that prepared it
 * @param database the database it belongs to
 */
public record PreparedTransaction(String gid, Instant preparedAt, String owner, String database) {}
