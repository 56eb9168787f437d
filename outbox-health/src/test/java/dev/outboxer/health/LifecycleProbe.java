package dev.outboxer.health;

import io.smallrye.health.SmallRyeHealthReporter;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.BeforeDestroyed;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;
import jakarta.json.JsonObject;

/**
 * Probes readiness at the two moments a test cannot reach from outside the container: while the
 * application starts, before Outboxer's own start-up observer ran (it runs at {@code
 * PLATFORM_BEFORE}), and while it stops, after Outboxer's shutdown observer ran.
 */
@ApplicationScoped
public class LifecycleProbe {

  static volatile JsonObject beforeStart;
  static volatile JsonObject afterStop;

  void beforeOutboxerStarts(
      @Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE - 100) @Initialized(ApplicationScoped.class) Object event,
      SmallRyeHealthReporter reporter) {
    beforeStart = new HealthProbe(reporter).readiness(OutboxStartedCheck.NAME);
  }

  void afterOutboxerStopped(
      @Observes @Priority(Interceptor.Priority.LIBRARY_AFTER + 1000) @BeforeDestroyed(ApplicationScoped.class) Object event,
      SmallRyeHealthReporter reporter) {
    afterStop = new HealthProbe(reporter).readiness(OutboxStartedCheck.NAME);
  }
}
