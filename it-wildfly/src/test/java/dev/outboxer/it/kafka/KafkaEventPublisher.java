package dev.outboxer.it.kafka;

import dev.outboxer.Outbox;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import java.util.ArrayList;
import java.util.List;

/** Publishes events in the caller's JTA transaction (the one {@code @Transactional} starts). */
@ApplicationScoped
public class KafkaEventPublisher {

  /** Thrown after publishing, so that the transaction rolls back; carries the ids publish returned. */
  public static final class RolledBack extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final List<Long> ids;

    RolledBack(List<Long> ids) {
      super("Simulated failure after publishing " + ids + ": the transaction rolls back");
      this.ids = ids;
    }
  }

  @Inject
  Outbox outbox;

  /** Publishes {@code count} events of the group, numbered from {@code first}, in one transaction. */
  @Transactional
  public List<Long> publish(String group, int first, int count) {
    return publishAll(group, first, count);
  }

  /** As {@link #publish}, then fails: the transaction and with it every publish roll back. */
  @Transactional
  public List<Long> publishThenFail(String group, int first, int count) {
    throw new RolledBack(publishAll(group, first, count));
  }

  private List<Long> publishAll(String group, int first, int count) {
    List<Long> ids = new ArrayList<>();
    for (int n = first; n < first + count; n++) {
      ids.add(outbox.publish("events", new KafkaEvent(group, n)));
    }
    return ids;
  }
}
