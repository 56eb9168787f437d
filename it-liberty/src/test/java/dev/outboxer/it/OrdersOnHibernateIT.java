package dev.outboxer.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.it.support.OutboxTables;
import jakarta.inject.Inject;
import java.util.OptionalLong;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The sample application with Hibernate ORM as its persistence provider (the server's
 * {@code hibernate} shared library; Arquillian deploys every archive with
 * {@code <classloader commonLibraryRef="hibernate"/>}), on PostgreSQL: the shared contract.
 */
@RequiresPostgres
@ExtendWith(FreshPostgresSchema.class)
@ExtendWith(NoFfdcIncidents.class)
@ExtendWith(ArquillianExtension.class)
class OrdersOnHibernateIT extends OrderFlowContract {

  @Deployment
  static WebArchive deployment() {
    WebArchive war = OrdersArchives.sample("orders-hibernate.war", OrdersOnHibernateIT.class, OrderFlowContract.class,
            RequiresPostgres.class, RequiresPostgres.Condition.class, FreshPostgresSchema.class, NoFfdcIncidents.class)
        .addClass(AppMetrics.class)
        .addPackage(OutboxTables.class.getPackage());
    return OrdersArchives.withPersistenceXml(war, "it/persistence-hibernate.xml");
  }

  @Test
  void the_persistence_unit_runs_on_hibernate() {
    assertThat(tables.providerEntityManagerClass()).startsWith("org.hibernate.");
  }

  @Inject
  AppMetrics metrics;

  @Override
  protected OptionalLong outboxCounter(String name, String outbox) {
    return OptionalLong.of(metrics.count(name, outbox));
  }
}
