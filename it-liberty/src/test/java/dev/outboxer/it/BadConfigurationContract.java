package dev.outboxer.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.junit.jupiter.api.Test;

/**
 * The sample with two broken configuration values ({@link #BROKEN_CONFIG}, set the way an operator
 * overrides keys), on any server: Outboxer fails the deployment, and the failure that reaches the
 * deployer names each key and value. The subclass deploys it as {@link #BROKEN} and checks the
 * server's own form of the failure ({@link #assertServerReported}).
 */
public abstract class BadConfigurationContract {

  static final String BROKEN = "orders-bad-config";
  static final Map<String, String> BROKEN_CONFIG = Map.of("outbox.orders.partitions", "zero", "outbox.audit.ordering", "sideways");

  /** The exceptions of the failure's cause chain, as "class: message", outermost first. */
  protected abstract void assertServerReported(List<String> causeChain);

  @ArquillianResource
  Deployer deployer;

  @Test
  void a_bad_value_fails_the_deployment_with_a_message_naming_the_key_and_the_value() {
    Throwable failure = catchThrowable(() -> deployer.deploy(BROKEN));
    try {
      assertThat(failure).as("the deployment failed").isNotNull();
      List<String> chain = new ArrayList<>();
      for (Throwable t = failure; t != null; t = t.getCause()) {
        chain.add(t.getClass().getName() + ": " + t.getMessage());
      }
      String all = String.join("\n", chain);
      System.out.println("Deployment failure cause chain:\n  " + String.join("\n  ", chain));
      assertServerReported(chain);
      // Every problem of the configuration is reported by the one failed deployment.
      assertThat(all).contains("outbox.orders.partitions=zero is not a number",
          "outbox.audit.ordering=sideways is not an ordering mode");
    } finally {
      deployer.undeploy(BROKEN);
    }
  }
}
