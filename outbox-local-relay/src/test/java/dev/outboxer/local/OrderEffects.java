package dev.outboxer.local;

import dev.outboxer.spi.OutboxRecord;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

/** The handler of outbox {@code orders}: typed, selected by {@link OrderEvent}'s {@code @Outboxed("orders")}. */
@ApplicationScoped
public class OrderEffects implements OutboxMessageHandler<OrderEvent> {

  @Inject EffectWriter writer;

  @Override
  public void handle(OrderEvent event, OutboxRecord record) throws Exception {
    writer.handle(record, event.group(), event.seq());
  }
}
