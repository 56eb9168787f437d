package dev.outboxer.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.it.support.OutboxTables;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link EarPackagingContract} on Open Liberty, with EclipseLink (Liberty's default provider). */
@RequiresPostgres
@ExtendWith(PreparedPostgresSchema.class)
@ExtendWith(ArquillianExtension.class)
class EarPackagingIT extends EarPackagingContract {

  @Deployment
  static EnterpriseArchive deployment() {
    return OrdersArchives.ear("orders-app.ear",
        OrdersArchives.sample("orders-web.war", EarPackagingIT.class, EarPackagingContract.class, OrderFlowContract.class,
                RequiresPostgres.class, RequiresPostgres.Condition.class, FreshPostgresSchema.class,
                PreparedPostgresSchema.class)
            .addPackage(OutboxTables.class.getPackage()),
        "jdbc/orders");
  }

  @Test
  void the_persistence_unit_in_the_ear_library_runs_on_eclipselink() {
    assertThat(tables.providerEntityManagerClass()).startsWith("org.eclipse.persistence.");
  }
}
