package dev.outboxer.quarkus.deployment;

import dev.outboxer.local.OutboxMessageHandler;
import dev.outboxer.spi.OutboxRecord;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The local relay's handler of the test application: records the order ids and the worker threads. */
@ApplicationScoped
public class ShipmentHandler implements OutboxMessageHandler<ShipmentRequested> {

  private final List<Long> shipped = new CopyOnWriteArrayList<>();
  private final List<String> threads = new CopyOnWriteArrayList<>();

  @Override
  public void handle(ShipmentRequested message, OutboxRecord record) {
    shipped.add(message.orderId());
    threads.add(Thread.currentThread().getName());
  }

  /** The order ids handled (a method: a field read through the client proxy would not reach the bean). */
  List<Long> shipped() {
    return List.copyOf(shipped);
  }

  /** The names of the threads the handler ran on. */
  List<String> threads() {
    return List.copyOf(threads);
  }
}
