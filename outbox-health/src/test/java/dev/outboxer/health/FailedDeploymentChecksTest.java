package dev.outboxer.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.Extension;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.weld.Container;
import org.jboss.weld.ContainerState;
import org.jboss.weld.bean.builtin.BeanManagerProxy;
import org.junit.jupiter.api.Test;

/**
 * The checks of a deployment that failed do not hold the server DOWN. WildFly 39's
 * microprofile-health-smallrye subsystem takes a deployment's checks when CDI validates it
 * (AfterDeploymentValidation) into the server's reporter and gives them back at BeforeShutdown, which
 * Weld fires only for a container that finished starting: the checks of a deployment that failed
 * validation stay in the reporter, and it keeps calling them after the deployment is gone. WildFly
 * then shuts the failed container down without that event (WeldBootstrapService: the container's
 * state set to SHUTDOWN, then cleaned up), and every call of a left-over check meets a container
 * without contexts. {@link TakesChecksLikeWildFly} takes the checks and shuts the container down the
 * same way.
 */
class FailedDeploymentChecksTest {

  @Test
  void the_checks_of_a_deployment_that_failed_validation_answer_up_as_not_running_instead_of_failing() {
    TakesChecksLikeWildFly server = new TakesChecksLikeWildFly();
    QuietLogs quiet = QuietLogs.of("org.jboss.weld");
    try {
      assertThatThrownBy(() -> OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
          .config("outbox.orders.relay", "recording")
          .config("outbox.orders.partitons", "4")
          .beans(RecordingRelay.class)
          .extensions(server)
          .start().close())
          .hasStackTraceContaining("outbox.orders.partitons");
    } finally {
      quiet.close();
    }
    server.shutDownTheFailedContainer();

    assertThat(server.checks).hasSize(5);
    for (HealthCheck leftOver : server.checks) {
      HealthCheckResponse response = leftOver.call();
      assertThat(response.getStatus()).as(response.getName()).isEqualTo(HealthCheckResponse.Status.UP);
      assertThat(response.getName()).startsWith("outbox-");
      assertThat(response.getData()).hasValueSatisfying(data -> assertThat(data.get("deployment"))
          .asString().startsWith("not running"));
    }
  }

  /**
   * Takes the deployment's checks at AfterDeploymentValidation, as WildFly's subsystem does, and
   * shuts a failed container down as WildFly does.
   */
  static final class TakesChecksLikeWildFly implements Extension {

    final List<HealthCheck> checks = new ArrayList<>();
    private String containerId;

    void take(@Observes AfterDeploymentValidation validation, BeanManager beans) {
      containerId = BeanManagerProxy.unwrap(beans).getContextId();
      beans.createInstance().select(HealthCheck.class, Readiness.Literal.INSTANCE).forEach(checks::add);
      beans.createInstance().select(HealthCheck.class, Liveness.Literal.INSTANCE).forEach(checks::add);
    }

    void shutDownTheFailedContainer() {
      Container container = Container.instance(containerId);
      container.setState(ContainerState.SHUTDOWN);
      container.cleanup();
    }
  }
}
