package dev.outboxer.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The sample with two broken configuration values ({@code outbox.orders.partitions=zero},
 * {@code outbox.audit.ordering=sideways}, set the way an operator overrides keys): Outboxer fails
 * the deployment, and the failure that reaches the deployer names each key and value.
 */
@RequiresPostgres
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class BadConfigurationIT {

  private static final String BROKEN = "orders-bad-config";

  @Deployment(name = BROKEN, managed = false, testable = false)
  static WebArchive deployment() {
    return OrdersArchives.withConfig(OrdersArchives.sample("orders-bad-config.war"),
        Map.of("outbox.orders.partitions", "zero", "outbox.audit.ordering", "sideways"));
  }

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
      assertThat(chain).anySatisfy(c -> assertThat(c).startsWith("jakarta.enterprise.inject.spi.DeploymentException"));
      // Every problem of the configuration is reported by the one failed deployment.
      assertThat(all).contains("outbox.orders.partitions=zero is not a number",
          "outbox.audit.ordering=sideways is not an ordering mode");
    } finally {
      deployer.undeploy(BROKEN);
    }
  }
}
