package dev.outboxer.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link BadConfigurationContract} on Open Liberty: the failed deployment (CWWKZ0002E) reaches the
 * test with Weld's {@code DeploymentException} in its cause chain.
 */
@RequiresPostgres
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class BadConfigurationIT extends BadConfigurationContract {

  @Deployment(name = BROKEN, managed = false, testable = false)
  static WebArchive deployment() {
    return OrdersArchives.withConfig(OrdersArchives.sample("orders-bad-config.war"), BROKEN_CONFIG);
  }

  @Override
  protected void assertServerReported(List<String> causeChain) {
    assertThat(causeChain).anySatisfy(c -> assertThat(c).startsWith("jakarta.enterprise.inject.spi.DeploymentException"));
  }
}
