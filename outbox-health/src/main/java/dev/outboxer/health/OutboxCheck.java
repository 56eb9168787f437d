package dev.outboxer.health;

import dev.outboxer.OutboxAdmin;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;

/**
 * The opening every Outboxer health check shares: the beans it reads, the answer once the CDI
 * container of its deployment is gone ({@link GoneDeployment}), and, for a check that reads the
 * database, its UP answer before Outboxer started. It decides no status itself: each check's
 * {@link #check} does. The checks stay {@code @Dependent}, so that they can answer after their
 * container is gone (see {@link GoneDeployment}).
 */
abstract class OutboxCheck implements HealthCheck {

  /** What a check that reads the database says before Outboxer started. */
  static final String NOT_STARTED = "not read: Outboxer has not started";

  @Inject BeanManager beans;
  @Inject OutboxAdmin admin;
  @Inject HealthConfiguration configuration;
  @Inject BacklogCache backlog;

  private final String name;
  private final String notStartedKey;

  /**
   * @param name the check's name
   * @param notStartedKey the data key of the check's UP answer {@value #NOT_STARTED} before
   *     Outboxer started, given without calling {@link #check}; {@code null}: {@link #check}
   *     answers then too
   */
  OutboxCheck(String name, String notStartedKey) {
    this.name = name;
    this.notStartedKey = notStartedKey;
  }

  @Override
  public HealthCheckResponse call() {
    if (GoneDeployment.isGone(beans)) {
      return GoneDeployment.answer(name);
    }
    HealthCheckResponseBuilder response = HealthCheckResponse.named(name);
    if (notStartedKey != null && !admin.started()) {
      return response.up().withData(notStartedKey, NOT_STARTED).build();
    }
    return check(response);
  }

  /**
   * The check's answer while its container runs (and, with a not-started key, once Outboxer started).
   *
   * @param response a builder named after the check, with no status and no data yet
   */
  abstract HealthCheckResponse check(HealthCheckResponseBuilder response);
}
