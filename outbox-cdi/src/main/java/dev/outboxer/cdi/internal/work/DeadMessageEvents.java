package dev.outboxer.cdi.internal.work;

import dev.outboxer.DeadMessage;
import dev.outboxer.cdi.internal.LogText;
import dev.outboxer.spi.Failures;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.ObserverMethod;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Tells the application's observers of {@link DeadMessage} that messages died, once their deaths
 * are committed: synchronous observers ({@code @Observes}) on the worker's thread, with no
 * transaction active, one event after the other; asynchronous ones ({@code @ObservesAsync}) on the
 * container's executor. Nothing an observer does reaches the outbox: a failure is logged at
 * WARNING, once per event and kind of observer, described through {@link Failures}.
 */
@ApplicationScoped
public class DeadMessageEvents {

  private static final Logger LOG = Logger.getLogger(DeadMessageEvents.class.getName());

  @Inject Event<DeadMessage> event;
  @Inject BeanManager beans;

  /** Whether there are synchronous and asynchronous observers; observers are fixed once the application runs. */
  private volatile Boolean anySync;
  private volatile Boolean anyAsync;

  /**
   * @param dead the messages whose deaths were just committed, in id order
   * @param partition the partition they were read from, for the log
   */
  void died(List<DeadMessage> dead, int partition) {
    if (dead.isEmpty()) {
      return;
    }
    resolveObservers(dead.get(0));
    for (DeadMessage message : dead) {
      if (anySync) {
        try {
          event.fire(message);
        } catch (RuntimeException | LinkageError | StackOverflowError failure) {
          warn(message, partition, "an observer", failure);
        }
      }
      if (anyAsync) {
        try {
          event.fireAsync(message).whenComplete((ignored, failure) -> {
            if (failure != null) {
              warn(message, partition, "an asynchronous observer", failure);
            }
          });
        } catch (RuntimeException | LinkageError failure) {
          warn(message, partition, "an asynchronous observer", failure);
        }
      }
    }
  }

  private void resolveObservers(DeadMessage sample) {
    if (anySync == null) {
      Set<ObserverMethod<? super DeadMessage>> observers = beans.resolveObserverMethods(sample);
      anyAsync = observers.stream().anyMatch(ObserverMethod::isAsync);
      anySync = observers.stream().anyMatch(observer -> !observer.isAsync());
    }
  }

  private static void warn(DeadMessage message, int partition, String who, Throwable failure) {
    LOG.log(Level.WARNING, "Outbox '" + message.outbox() + "', partition " + partition + ": " + who + " of DeadMessage"
        + " failed for message " + message.id() + (message.groupKey() == null ? " (no group)"
        : " of group '" + LogText.escaped(message.groupKey()) + "'") + ": " + Failures.describe(failure)
        + ". The message stays dead and nothing the outbox committed changes; the event is not repeated",
        Failures.loggable(failure));
  }
}
