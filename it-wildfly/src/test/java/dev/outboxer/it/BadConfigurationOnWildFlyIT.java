package dev.outboxer.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link BadConfigurationContract} on WildFly: the management operation that deploys fails, and its
 * failure description (the text of the Arquillian exception) carries Weld's WeldStartService failure
 * with Outboxer's messages.
 */
@RequiresPostgres
// Creates the tests' database if missing: WildFly's Hibernate reads JDBC metadata before Weld starts,
// so without the database the deployment would fail on that, before Outboxer's check (seen on a fresh CI host).
@ExtendWith(FreshPostgresSchema.class)
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class BadConfigurationOnWildFlyIT extends BadConfigurationContract {

  @Deployment(name = BROKEN, managed = false, testable = false)
  static WebArchive deployment() {
    return WildFlyArchives.forWildFly(OrdersArchives.sample("orders-bad-config.war"), BROKEN_CONFIG);
  }

  @Override
  protected void assertServerReported(List<String> causeChain) {
    assertThat(String.join("\n", causeChain)).contains("WeldStartService");
  }
}
