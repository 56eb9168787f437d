package dev.outboxer.health;

import dev.outboxer.OutboxCounts;
import jakarta.enterprise.context.Dependent;
import java.time.Duration;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness {@value #NAME}: per outbox, how long its oldest pending message has waited (the lag of
 * the whole outbox, all nodes together, read at most once per refresh interval). DOWN only if an
 * outbox sets {@code outbox.<name>.health.max-lag} and its lag exceeds it, or its lag could not be
 * read (the threshold can then not be vouched for); UP with the lag as data otherwise. Not read
 * before Outboxer started.
 */
@Readiness
@Dependent   // not a client proxy, to answer after its container is gone (GoneDeployment)
class OutboxLagCheck extends OutboxCheck {

  static final String NAME = "outbox-lag";

  OutboxLagCheck() {
    super(NAME, "lag");
  }

  @Override
  HealthCheckResponse check(HealthCheckResponseBuilder response) {
    HealthSettings settings = configuration.settings();
    boolean up = true;
    for (String outbox : settings.outboxes()) {
      Duration maxLag = settings.maxLag().get(outbox);
      if (maxLag != null) {
        response.withData(outbox + ".max-lag-seconds", maxLag.toSeconds());
      }
      BacklogCache.Read<OutboxCounts> read = backlog.counts(outbox);
      if (read.failure() != null) {
        response.withData(outbox + ".error", "the lag could not be read: " + read.failure());
        up &= maxLag == null;
        continue;
      }
      OutboxCounts counts = read.value();
      response.withData(outbox + ".oldest-pending-age-seconds", counts.oldestPendingAge().toSeconds());
      response.withData(outbox + ".pending", counts.pending());
      if (maxLag != null && counts.oldestPendingAge().compareTo(maxLag) > 0) {
        up = false;
        response.withData(outbox + ".lagging", "the oldest pending message has waited "
            + counts.oldestPendingAge().toSeconds() + "s, more than " + HealthSettingsCatalog.OUTBOX.fullKey(outbox,
            HealthSettingsCatalog.MAX_LAG.key()) + "=" + HealthSettings.format(maxLag));
      }
    }
    return response.status(up).build();
  }
}
