package dev.outboxer.cdi.internal.work;

import dev.outboxer.DeadMessage;
import dev.outboxer.cdi.internal.Rows;
import dev.outboxer.testing.TestDatabase;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.event.ObservesAsync;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The application's observer of dead messages in {@link PermanentFailureContractTest}: records
 * each event with the message's status as another connection sees it at that moment (so only
 * what is committed), and throws for the groups a test names.
 */
@ApplicationScoped
public class DeadMessageObserver {

  /** One event as the synchronous observer got it. */
  public record Heard(DeadMessage message, String committedStatus, String thread) {}

  static final List<Heard> HEARD = new CopyOnWriteArrayList<>();
  static final List<DeadMessage> HEARD_LATER = new CopyOnWriteArrayList<>();
  static final Set<String> THROW_FOR_GROUPS = java.util.concurrent.ConcurrentHashMap.newKeySet();
  static volatile TestDatabase database;

  void died(@Observes DeadMessage message) {
    HEARD.add(new Heard(message, Rows.status(database, message.id()), Thread.currentThread().getName()));
    if (message.groupKey() != null && THROW_FOR_GROUPS.contains(message.groupKey())) {
      throw new IllegalStateException("the observer's alerting service is down \u0000 (for " + message.id() + ")");
    }
  }

  void diedLater(@ObservesAsync DeadMessage message) {
    HEARD_LATER.add(message);
  }

  static List<Heard> heardOf(long id) {
    return HEARD.stream().filter(heard -> heard.message().id() == id).toList();
  }

  static void reset() {
    HEARD.clear();
    HEARD_LATER.clear();
    THROW_FOR_GROUPS.clear();
  }
}
