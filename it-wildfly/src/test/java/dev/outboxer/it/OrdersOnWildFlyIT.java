package dev.outboxer.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.it.support.OutboxTables;
import dev.outboxer.it.support.TimerInventory;
import jakarta.inject.Inject;
import java.util.OptionalLong;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The sample application exactly as built for Open Liberty (it-liberty's orders.war: its
 * persistence.xml names no provider, so Hibernate, WildFly's default) on PostgreSQL through the XA
 * data source {@code java:/jdbc/orders} and the embedded ActiveMQ Artemis broker; the default worker
 * mode (executor, WildFly's default ManagedScheduledExecutorService). The shared contract, plus
 * what is WildFly's own.
 */
@RequiresPostgres
@ExtendWith(FreshPostgresSchema.class)
@ExtendWith(ArquillianExtension.class)
class OrdersOnWildFlyIT extends OrderFlowContract {

  @Deployment
  static WebArchive deployment() {
    return WildFlyArchives.forWildFly(OrdersArchives.sample("orders-wildfly.war", OrdersOnWildFlyIT.class,
            OrderFlowContract.class, RequiresPostgres.class, RequiresPostgres.Condition.class, FreshPostgresSchema.class)
        .addPackage(OutboxTables.class.getPackage()));
  }

  @Inject
  TimerInventory timers;

  /** WildFly ships no MicroProfile Metrics (removed in WildFly 29; it has a Micrometer subsystem). */
  @Override
  protected OptionalLong outboxCounter(String name, String outbox) {
    return OptionalLong.empty();
  }

  @Test
  void the_persistence_unit_runs_on_hibernate_the_servers_default_provider() {
    assertThat(tables.providerEntityManagerClass()).startsWith("org.hibernate.");
  }

  /**
   * Why {@link #outboxCounter} is empty here: WildFly gives applications no MicroProfile Metrics API
   * (its metrics are Micrometer's), so this whole class proves that Outboxer deploys and relays
   * without one.
   */
  @Test
  void the_application_sees_no_microprofile_metrics_api() {
    assertThatThrownBy(() -> Class.forName("org.eclipse.microprofile.metrics.MetricRegistry", false,
        OrdersOnWildFlyIT.class.getClassLoader())).isInstanceOf(ClassNotFoundException.class);
  }

  @Test
  void workers_run_on_the_managed_executor_and_create_no_ejb_timers() {
    assertThat(timers.infos()).noneMatch(info -> info.startsWith("outboxer-"));
  }
}
