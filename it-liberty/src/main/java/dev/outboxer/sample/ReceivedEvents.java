package dev.outboxer.sample;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;

/** What {@link EventConsumers} received, in arrival order; the newest {@value #KEPT} are kept. */
@ApplicationScoped
public class ReceivedEvents {

  static final int KEPT = 50_000;

  private final ConcurrentLinkedDeque<ReceivedEvent> events = new ConcurrentLinkedDeque<>();
  private final AtomicInteger size = new AtomicInteger();

  void add(ReceivedEvent event) {
    events.addLast(event);
    if (size.incrementAndGet() > KEPT && events.pollFirst() != null) {
      size.decrementAndGet();
    }
  }

  /**
   * @param queue {@code orders}, {@code audit}, or {@code null} for both
   * @param groupKey only this group, or {@code null} for all
   * @param customer only events whose group key or body names this customer, or {@code null} for all
   */
  public List<ReceivedEvent> find(String queue, String groupKey, String customer) {
    String quoted = customer == null ? null : "\"customer\":\"" + customer + "\"";
    return events.stream()
        .filter(e -> queue == null || queue.equals(e.queue()))
        .filter(e -> groupKey == null || groupKey.equals(e.groupKey()))
        .filter(e -> customer == null || ("customer:" + customer).equals(e.groupKey()) || e.body().contains(quoted))
        .toList();
  }

  public List<ReceivedEvent> all() {
    return List.copyOf(events);
  }

  public boolean contains(String queue, long outboxId) {
    return events.stream().anyMatch(e -> e.queue().equals(queue) && e.outboxId() == outboxId);
  }

  public long count(String queue, long outboxId) {
    return events.stream().filter(e -> Objects.equals(e.queue(), queue) && e.outboxId() == outboxId).count();
  }
}
