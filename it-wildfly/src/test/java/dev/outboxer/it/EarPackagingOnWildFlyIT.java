package dev.outboxer.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.it.support.OutboxTables;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link EarPackagingContract} on WildFly, with Hibernate (WildFly's default provider). The
 * configuration override with the JMS names moves to the EAR's lib/ with Outboxer, which reads its
 * configuration there.
 */
@RequiresPostgres
@ExtendWith(PreparedPostgresSchema.class)
@ExtendWith(ArquillianExtension.class)
class EarPackagingOnWildFlyIT extends EarPackagingContract {

  @Deployment
  static EnterpriseArchive deployment() {
    return WildFlyArchives.ear("orders-app.ear",
        OrdersArchives.sample("orders-web.war", EarPackagingOnWildFlyIT.class, EarPackagingContract.class,
                OrderFlowContract.class, RequiresPostgres.class, RequiresPostgres.Condition.class,
                FreshPostgresSchema.class, PreparedPostgresSchema.class)
            .addPackage(OutboxTables.class.getPackage()));
  }

  @Test
  void the_persistence_unit_in_the_ear_library_runs_on_hibernate() {
    assertThat(tables.providerEntityManagerClass()).startsWith("org.hibernate.");
  }
}
