package dev.outboxer.health;

import dev.outboxer.OutboxAdmin;
import dev.outboxer.PreparedTransaction;
import jakarta.enterprise.context.Dependent;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.SortedMap;
import java.util.stream.Collectors;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness {@value #NAME}: per outbox, the partitions that a prepared (two-phase) transaction
 * holds ({@link OutboxAdmin#preparedTransactions}, read at most once per refresh interval). Such a
 * partition is claimed by no worker of any node until the transaction is committed or rolled back;
 * the data names the transaction and the way out. Always UP: the other partitions work, publishing
 * works, and the lock is the whole cluster's, so a DOWN would take every node out of service (or,
 * as liveness, restart them all) without finishing the transaction. An operator who wants an alert
 * sets {@code outbox.<name>.health.max-lag}: a held partition's messages age, and {@code
 * outbox-lag} goes DOWN; this check's data says why. PostgreSQL only: other databases never report
 * a held partition.
 */
@Readiness
@Dependent   // not a client proxy, to answer after its container is gone (GoneDeployment)
class PreparedTransactionsCheck extends OutboxCheck {

  static final String NAME = "outbox-prepared-transactions";

  PreparedTransactionsCheck() {
    super(NAME, "prepared-transactions");
  }

  @Override
  HealthCheckResponse check(HealthCheckResponseBuilder response) {
    response.up();
    Instant now = Instant.now();
    for (String outbox : configuration.settings().outboxes()) {
      BacklogCache.Read<SortedMap<Integer, PreparedTransaction>> read = backlog.preparedTransactions(outbox);
      if (read.failure() != null) {
        response.withData(outbox + ".error", "the prepared transactions could not be read: " + read.failure());
        continue;
      }
      SortedMap<Integer, PreparedTransaction> held = read.value();
      response.withData(outbox + ".held-partitions", held.isEmpty() ? "none"
          : held.keySet().stream().map(String::valueOf).collect(Collectors.joining(", ")));
      for (Map.Entry<Integer, PreparedTransaction> entry : held.entrySet()) {
        response.withData(outbox + ".partition-" + entry.getKey(), describe(entry.getValue(), now));
      }
    }
    return response.build();
  }

  static String describe(PreparedTransaction transaction, Instant now) {
    String gid = transaction.gid();
    String since = transaction.preparedAt() == null ? "" : " since " + transaction.preparedAt() + " ("
        + Math.max(0, Duration.between(transaction.preparedAt(), now).toSeconds()) + "s)";
    return "held by the prepared transaction '" + gid + "'" + since + " of database user '" + transaction.owner()
        + "' in database '" + transaction.database() + "'; no worker can claim the partition until it is finished."
        + " Wait for the transaction manager's recovery on the node that prepared it, or, after checking whether the"
        + " broker has the batch, COMMIT PREPARED '" + gid + "' (it has) or ROLLBACK PREPARED '" + gid + "' (it has not)";
  }
}
