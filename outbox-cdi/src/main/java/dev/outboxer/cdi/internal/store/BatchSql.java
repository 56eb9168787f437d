package dev.outboxer.cdi.internal.store;

import dev.outboxer.cdi.internal.store.BatchStatements.Claim;
import dev.outboxer.cdi.internal.store.BatchStatements.ClaimedRead;
import dev.outboxer.cdi.internal.store.BatchStatements.Failure;
import dev.outboxer.cdi.internal.store.BatchStatements.Read;
import dev.outboxer.cdi.internal.store.BatchStatements.ReadRequest;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.Collection;
import java.util.List;

/**
 * The statements of a worker's batch transaction on one database (see {@link BatchStatements}, which
 * the workers call): {@link PostgresBatchSql}, PostgreSQL's fast path of a few round trips, and
 * {@link RowByRowBatchSql} for MariaDB, H2 and SQLite ({@link MariaDbBatchSql}, {@link H2BatchSql},
 * {@link SqliteBatchSql}, which differ only in how they lock the partition and draw its token).
 * Every implementation keeps the same contract, which the database contract tests check on each.
 */
interface BatchSql {

  /** Claims the partition; with {@code probeRunning} on PostgreSQL also probes the running transactions. */
  Claim claim(Connection connection, String outbox, int partition, String node, String instance, LocalDateTime now,
      long idleTimeoutMillis, boolean probeRunning) throws SQLException;

  /** Claims the partition and, if that succeeded, reads it: see {@link BatchStatements#claimAndRead}. */
  ClaimedRead claimAndRead(Connection connection, String outbox, int partition, String node, String instance,
      LocalDateTime now, long idleTimeoutMillis, ReadRequest request) throws SQLException;

  /** Reads the claimed partition: see {@link BatchStatements#read}. */
  Read read(Connection connection, String outbox, int partition, ReadRequest request, LocalDateTime now)
      throws SQLException;

  /** Deletes the relayed rows and records the failed attempts: see {@link BatchStatements#finish}. */
  int finish(Connection connection, Collection<Long> relayed, List<Failure> failures, LocalDateTime now)
      throws SQLException;
}
