package dev.outboxer.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.it.support.OutboxTables;
import dev.outboxer.it.support.TimerInventory;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Inject;
import java.time.Duration;
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

  @Inject
  MeterRegistry registry;

  /** Outboxer's counters in the MeterRegistry WildFly's micrometer subsystem gives the application. */
  @Override
  protected OptionalLong outboxCounter(String name, String outbox) {
    Counter counter = registry.find(name).tag("outbox", outbox).counter();
    return OptionalLong.of(counter == null ? 0 : (long) counter.count());
  }

  @Test
  void the_persistence_unit_runs_on_hibernate_the_servers_default_provider() {
    assertThat(tables.providerEntityManagerClass()).startsWith("org.hibernate.");
  }

  /**
   * WildFly ships no MicroProfile Metrics (removed in WildFly 29): Outboxer's metrics go to the
   * Micrometer registry of the micrometer subsystem (configure-server.cli enables it), gauges included.
   */
  @Test
  void the_outbox_metrics_are_in_the_micrometer_registry_as_wildfly_has_no_microprofile_metrics() {
    assertThatThrownBy(() -> Class.forName("org.eclipse.microprofile.metrics.MetricRegistry", false,
        OrdersOnWildFlyIT.class.getClassLoader())).isInstanceOf(ClassNotFoundException.class);
    eventually(Duration.ofSeconds(10)).untilAsserted(() -> {
      Gauge pending = registry.find("outbox.pending").tag("outbox", "orders").gauge();
      assertThat(pending).as("outbox.pending{outbox=orders}").isNotNull();
      assertThat(pending.value()).isGreaterThanOrEqualTo(0);
    });
  }

  @Test
  void workers_run_on_the_managed_executor_and_create_no_ejb_timers() {
    assertThat(timers.infos()).noneMatch(info -> info.startsWith("outboxer-"));
  }
}
