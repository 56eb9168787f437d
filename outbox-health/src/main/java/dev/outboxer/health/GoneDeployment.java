package dev.outboxer.health;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.ContextNotActiveException;
import jakarta.enterprise.inject.spi.BeanManager;
import org.eclipse.microprofile.health.HealthCheckResponse;

/**
 * What a check answers once the CDI container of its deployment is gone: UP, with {@value
 * #DATA_KEY} {@code "not running: ..."} as its only data.
 *
 * <p>Why a server calls such a check at all: WildFly 39's {@code microprofile-health-smallrye}
 * subsystem takes a deployment's checks into the server's reporter when CDI validates the deployment
 * (AfterDeploymentValidation) and gives them back at BeforeShutdown, which Weld fires only for a
 * container that finished starting. A deployment that fails validation (a misspelt key) is shut down
 * without it, so the server keeps calling its checks until it is reloaded, also after a good
 * deployment replaced the failed one. Through a client proxy of the gone container each call threw,
 * and the server reported 503 DOWN. That is the subsystem's bug; this is Outboxer's way around it,
 * which is why the checks are {@code @Dependent} (the server holds the check itself, which can
 * answer) rather than {@code @ApplicationScoped} (a client proxy, which throws). UP, because the
 * deployment is the server's to report: WildFly's own readiness check {@code deployments-status}
 * says whether it failed.
 *
 * <p>Not detected: a container that failed to start but was not shut down; its checks answer as
 * they would before Outboxer started.
 */
final class GoneDeployment {

  /** The data key of the answer. */
  static final String DATA_KEY = "deployment";

  private GoneDeployment() {}

  /** Whether the container the check belongs to has shut down: its application context is gone. */
  static boolean isGone(BeanManager beans) {
    try {
      return !beans.getContext(ApplicationScoped.class).isActive();
    } catch (ContextNotActiveException | IllegalStateException e) {
      return true;
    }
  }

  static HealthCheckResponse answer(String check) {
    return HealthCheckResponse.named(check).up().withData(DATA_KEY, "not running: the CDI container of the"
        + " deployment that registered this check has shut down (a failed deployment; WildFly keeps its checks"
        + " until a reload). The server's own checks report the deployment (WildFly: deployments-status)").build();
  }
}
