package dev.outboxer.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.it.support.ProbePublisher;
import dev.outboxer.it.support.ProbeRelay;
import dev.outboxer.it.support.TimerInventory;
import dev.outboxer.sample.OrderDesk;
import dev.outboxer.sample.OrderRequest;
import dev.outboxer.sample.OrderService;
import dev.outboxer.sample.PlacedOrder;
import dev.outboxer.sample.ReceivedEvent;
import dev.outboxer.sample.ReceivedEvents;
import dev.outboxer.sample.ShippingPartner;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * What the sample does with {@code outbox.worker=ejb-timer} on any server: Outboxer's singleton
 * timer bean (in outbox-cdi.jar, WEB-INF/lib) drives the partition workers instead of the managed
 * executor. A test-only outbox ({@code probe}, relay {@link ProbeRelay}) shows who calls the relay.
 * Deployed by {@link EjbTimerWorkersIT} (Open Liberty) and it-wildfly's subclass, each with
 * {@link #CONFIG}.
 */
public abstract class EjbTimerWorkersContract {

  /** The configuration the deployment adds (OrdersArchives.withConfig). */
  public static final Map<String, String> CONFIG = Map.of("outbox.worker", "ejb-timer", "outbox.probe.relay", "probe");

  @Inject TimerInventory timers;
  @Inject ProbePublisher probes;
  @Inject ProbeRelay probeRelay;
  @Inject OrderService orders;
  @Inject OrderDesk desk;
  @Inject ReceivedEvents received;
  @Inject ShippingPartner shipping;

  @Test
  void the_relay_is_called_from_outboxers_ejb_timeout_not_from_the_managed_executor() {
    assertThat(timers.infos()).contains("outboxer-tick");
    long id = probes.publish("who calls me?");
    OrderFlowContract.eventually(Duration.ofSeconds(30)).until(() -> probeRelay.callersOf(id) != null);
    List<String> callers = probeRelay.callersOf(id);
    assertThat(callers).contains("dev.outboxer.cdi.internal.ejb.OutboxTimerBean",
        "dev.outboxer.cdi.internal.work.TimerDrivenWorkers");
    assertThat(callers).doesNotContain("dev.outboxer.cdi.internal.work.ScheduledWorker");
  }

  @Test
  void orders_are_relayed_in_order_per_customer_by_timer_driven_workers() {
    List<String> customers = List.of(customer(), customer(), customer());
    List<PlacedOrder> placed = new ArrayList<>();
    for (int n = 0; n < 12; n++) {
      OrderRequest request = new OrderRequest(customers.get(n % 3), "timer-" + n, 1);
      placed.add(n % 2 == 0 ? orders.place(request) : desk.place(request));
    }
    OrderFlowContract.eventually(Duration.ofSeconds(60)).untilAsserted(() -> {
      for (PlacedOrder order : placed) {
        assertThat(shipping.accepted(order.shipmentMessageId())).isTrue();
      }
      for (String customer : customers) {
        assertThat(received.find("orders", null, customer)).hasSize(4);
        assertThat(received.find("audit", null, customer)).hasSize(4);
      }
    });
    for (String customer : customers) {
      List<Long> expected = placed.stream().filter(p -> p.customer().equals(customer))
          .map(PlacedOrder::orderPlacedMessageId).toList();
      assertThat(received.find("orders", null, customer)).extracting(ReceivedEvent::outboxId).containsExactlyElementsOf(expected);
    }
  }

  private static String customer() {
    return "timer-" + UUID.randomUUID().toString().substring(0, 8);
  }
}
