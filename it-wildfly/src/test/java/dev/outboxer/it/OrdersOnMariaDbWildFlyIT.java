package dev.outboxer.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.it.support.OutboxTables;
import dev.outboxer.it.support.UnitDatabase;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Inject;
import java.util.OptionalLong;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link OrderFlowContract} on MariaDB: the sample with its persistence unit (Hibernate) on the XA
 * data source {@code java:/jdbc/ordersMariaDB}, two-phase commit with the embedded Artemis broker,
 * executor workers. In the same server as the PostgreSQL classes.
 */
@RequiresMariaDb
@ExtendWith(FreshMariaDbSchema.class)
@ExtendWith(ArquillianExtension.class)
class OrdersOnMariaDbWildFlyIT extends OrderFlowContract {

  @Deployment
  static WebArchive deployment() {
    return WildFlyArchives.onMariaDb(WildFlyArchives.forWildFly(OrdersArchives.sample("orders-mariadb.war",
            OrdersOnMariaDbWildFlyIT.class, OrderFlowContract.class, RequiresMariaDb.class,
            RequiresMariaDb.Condition.class, FreshMariaDbSchema.class)
        .addPackage(OutboxTables.class.getPackage())));
  }

  @Inject
  UnitDatabase database;

  @Inject
  MeterRegistry registry;

  /** As {@code OrdersOnWildFlyIT}: the MeterRegistry of WildFly's micrometer subsystem. */
  @Override
  protected OptionalLong outboxCounter(String name, String outbox) {
    Counter counter = registry.find(name).tag("outbox", outbox).counter();
    return OptionalLong.of(counter == null ? 0 : (long) counter.count());
  }

  @Test
  void the_persistence_unit_and_so_the_outbox_rows_are_in_mariadb() {
    assertThat(database.version()).contains("MariaDB");
    assertThat(tables.providerEntityManagerClass()).startsWith("org.hibernate.");
  }
}
