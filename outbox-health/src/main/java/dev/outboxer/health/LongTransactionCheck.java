package dev.outboxer.health;

import dev.outboxer.OpenTransaction;
import dev.outboxer.OutboxAdmin;
import jakarta.enterprise.context.Dependent;
import java.time.Duration;
import java.util.Optional;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness {@value #NAME}: the oldest transaction open on another session of the outbox's
 * database ({@link OutboxAdmin#oldestOpenTransaction}, read at most once per refresh interval),
 * and, once it has been open longer than {@code outbox.health.long-transaction}, a warning naming
 * its session (pid, user, application, client, state) and its age. On PostgreSQL such a
 * transaction keeps every row version the workers delete and slows draining down until it ends.
 *
 * <p>Always UP: the transaction is not this node's, nothing is lost meanwhile, and a DOWN would take
 * every node out of service (as liveness: restart them all) without ending it. An operator who
 * wants an alert sets {@code outbox.<name>.health.max-lag} ({@code outbox-lag} goes DOWN when the
 * slowed drain lets messages age) or alerts on the gauge {@code outbox.oldest.transaction.age};
 * this check's data says who. PostgreSQL only: other databases report none.
 */
@Readiness
@Dependent   // not a client proxy, to answer after its container is gone (GoneDeployment)
class LongTransactionCheck extends OutboxCheck {

  static final String NAME = "outbox-long-transaction";

  LongTransactionCheck() {
    super(NAME, "oldest-transaction");
  }

  @Override
  HealthCheckResponse check(HealthCheckResponseBuilder response) {
    response.up();
    BacklogCache.Read<Optional<OpenTransaction>> read = backlog.oldestOpenTransaction();
    if (read.failure() != null) {
      return response.withData("error", "the open transactions could not be read: " + read.failure()).build();
    }
    Optional<OpenTransaction> oldest = read.value();
    if (oldest.isEmpty()) {
      return response.withData("oldest-transaction", "none open on another session (known on PostgreSQL only)")
          .build();
    }
    OpenTransaction transaction = oldest.get();
    response.withData("oldest-transaction-pid", transaction.pid())
        .withData("oldest-transaction-age-seconds", transaction.age().toSeconds());
    Duration threshold = configuration.settings().longTransaction();
    if (transaction.age().compareTo(threshold) > 0) {
      response.withData("warning", warning(transaction, threshold));
    }
    return response.build();
  }

  static String warning(OpenTransaction transaction, Duration threshold) {
    return "pid " + transaction.pid() + " (user '" + transaction.user() + "', application '" + transaction.application()
        + "', client " + transaction.client() + ", state '" + transaction.state() + "') has had a transaction open for "
        + transaction.age().toSeconds() + "s, more than " + HealthSettingsCatalog.GLOBAL.prefix()
        + HealthSettingsCatalog.LONG_TRANSACTION.key() + "=" + HealthSettings.format(threshold) + ". While it is"
        + " open, PostgreSQL keeps every row the workers delete and draining slows down; nothing is lost. End it"
        + " (commit or roll back, or SELECT pg_terminate_backend(" + transaction.pid() + ")).";
  }
}
