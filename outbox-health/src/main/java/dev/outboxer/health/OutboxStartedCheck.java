package dev.outboxer.health;

import dev.outboxer.OutboxAdmin;
import dev.outboxer.WorkerStatus;
import jakarta.enterprise.context.Dependent;
import java.util.Map;
import java.util.stream.Collectors;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness {@value #NAME}: UP once Outboxer has started on this node ({@link OutboxAdmin#started()}:
 * schema checked, rules in line with the configuration, workers started), DOWN before that and once
 * shutdown has begun. Reads no database. While Outboxer waits for a database it could not reach at
 * start-up, or after it failed to start once the database answered, each outbox's entry says so:
 * {@code "not started: waiting for the database (...): ..."}.
 */
@Readiness
@Dependent   // not a client proxy, to answer after its container is gone (GoneDeployment)
class OutboxStartedCheck extends OutboxCheck {

  static final String NAME = "outbox-started";

  OutboxStartedCheck() {
    super(NAME, null);
  }

  @Override
  HealthCheckResponse check(HealthCheckResponseBuilder response) {
    boolean started = admin.started();
    response.status(started);
    String notStarted = admin.notStartedReason().map(reason -> "not started: " + reason).orElse("not started");
    Map<String, Long> workers = started
        ? admin.workers().stream().collect(Collectors.groupingBy(WorkerStatus::outbox, Collectors.counting()))
        : Map.of();
    for (String outbox : configuration.settings().outboxes()) {
      long count = workers.getOrDefault(outbox, 0L);
      response.withData(outbox, !started ? notStarted
          : count > 0 ? "started, " + count + " partition worker(s) on this node"
          : "started, publish only on this node");
    }
    return response.build();
  }
}
