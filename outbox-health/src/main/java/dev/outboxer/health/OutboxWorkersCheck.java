package dev.outboxer.health;

import dev.outboxer.PartitionStatus;
import dev.outboxer.WorkerStatus;
import jakarta.enterprise.context.Dependent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Liveness;

/**
 * Liveness {@value #NAME}: DOWN when a partition worker of this node has not run for longer than its
 * stall time ({@code outbox.health.worker-stall}) while its partition has messages ready to go
 * ({@code pending - retrying > 0}). "Not run" counts from the end of the worker's last run, or,
 * while a run goes on, from its start: a batch that takes longer than the stall time counts as
 * stalled too.
 *
 * <p>The worker state is this node's memory; the backlog is read from the database only for a
 * worker that is past its stall time, and at most once per refresh interval. If that read fails
 * the check stays UP and says so in its data: a restart does not cure a database that cannot be
 * read, and the readiness checks show it. UP on a node without workers ({@code outbox.worker=none}),
 * and before Outboxer started or after it stopped (the readiness check covers those).
 */
@Liveness
@Dependent   // not a client proxy, to answer after its container is gone (GoneDeployment)
class OutboxWorkersCheck extends OutboxCheck {

  static final String NAME = "outbox-workers";

  OutboxWorkersCheck() {
    super(NAME, null);
  }

  @Override
  HealthCheckResponse check(HealthCheckResponseBuilder response) {
    HealthSettings settings = configuration.settings();
    List<WorkerStatus> workers = admin.workers();
    response.withData("workers", workers.size());
    List<String> stalled = new ArrayList<>();
    for (WorkerStatus worker : workers) {
      Duration stall = settings.workerStall().getOrDefault(worker.outbox(), HealthSettingsCatalog.WORKER_STALL.defaultValue().orElseThrow());
      if (worker.sinceLastActivity().compareTo(stall) <= 0) {
        continue;
      }
      String key = worker.outbox() + ".partition-" + worker.partition();
      String quiet = (worker.running() ? "its current run started " : "its last run ended ")
          + seconds(worker.sinceLastActivity()) + " ago (stall time " + HealthSettings.format(stall) + ")";
      BacklogCache.Read<List<PartitionStatus>> read = backlog.partitions(worker.outbox());
      if (read.failure() != null) {
        response.withData(key, quiet + "; whether messages wait is unknown: " + read.failure());
        continue;
      }
      long ready = read.value().stream().filter(p -> p.partition() == worker.partition())
          .mapToLong(p -> p.pending() - p.retrying()).sum();
      if (ready > 0) {
        stalled.add(worker.outbox() + "/" + worker.partition());
        response.withData(key, "stalled: " + quiet + ", while " + ready + " message(s) wait");
      }
    }
    if (!stalled.isEmpty()) {
      response.withData("stalled", String.join(", ", stalled));
    }
    return response.status(stalled.isEmpty()).build();
  }

  private static String seconds(Duration duration) {
    return duration.toMillis() / 100 / 10.0 + "s";
  }
}
