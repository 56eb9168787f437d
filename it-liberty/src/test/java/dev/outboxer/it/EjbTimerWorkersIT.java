package dev.outboxer.it;

import dev.outboxer.it.support.OutboxTables;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link EjbTimerWorkersContract} on Open Liberty: the sample with {@code outbox.worker=ejb-timer}. */
@RequiresPostgres
@ExtendWith(FreshPostgresSchema.class)
@ExtendWith(ArquillianExtension.class)
class EjbTimerWorkersIT extends EjbTimerWorkersContract {

  @Deployment
  static WebArchive deployment() {
    WebArchive war = OrdersArchives.sample("orders-ejb-timer.war", EjbTimerWorkersIT.class, EjbTimerWorkersContract.class,
            OrderFlowContract.class, RequiresPostgres.class, RequiresPostgres.Condition.class, FreshPostgresSchema.class)
        .addPackage(OutboxTables.class.getPackage());
    return OrdersArchives.withConfig(war, CONFIG);
  }
}
