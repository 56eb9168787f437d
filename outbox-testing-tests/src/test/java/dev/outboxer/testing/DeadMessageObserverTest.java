package dev.outboxer.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.DeadMessage;
import dev.outboxer.Outbox;
import dev.outboxer.OutboxMessage;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Issue 30, item 4, with the test kit: an application tests its observer of {@link DeadMessage}
 * by having the recording relay fail a message permanently. The message dies at its first attempt
 * (with the default {@code max-attempts=infinity}), the observer hears of it, and the group's next
 * message goes out.
 */
class DeadMessageObserverTest {

  /** The application's observer, as it would alert or compensate. */
  @ApplicationScoped
  public static class Alerts {
    static final List<DeadMessage> RAISED = new CopyOnWriteArrayList<>();

    void raise(@Observes DeadMessage dead) {
      RAISED.add(dead);
    }
  }

  public record Ordered(String groupKey, int n) implements OutboxMessage {}

  @Test
  void a_message_the_recording_relay_fails_permanently_dies_at_once_and_the_observer_hears_of_it() throws Exception {
    // onlyGivenConfig: this module's microprofile-config.properties says outbox.worker=none, as a production file may.
    try (OutboxTestContainer container = OutboxTestContainer.builder(TestDatabase.H2).onlyGivenConfig()
        .config("outbox.orders.relay", "recording")
        .beans(RecordingRelay.class, Alerts.class)
        .start()) {
      RecordingRelay relay = container.select(RecordingRelay.class);
      relay.failPermanentlyWhen(record -> record.payloadText().contains("\"n\":1"));
      Outbox outbox = container.select(Outbox.class);
      List<Long> ids = container.inTransaction(() -> List.of(outbox.publish("orders", new Ordered("order:7", 1)),
          outbox.publish("orders", new Ordered("order:7", 2))));

      try {
        await().atMost(Duration.ofSeconds(10)).until(() -> !Alerts.RAISED.isEmpty() && !relay.confirmed().isEmpty());
      } catch (org.awaitility.core.ConditionTimeoutException timeout) {
        throw new AssertionError("heard " + Alerts.RAISED + ", handed " + relay.handed() + ", confirmed "
            + relay.confirmed() + ", dead " + container.select(dev.outboxer.OutboxAdmin.class).dead("orders", 10));
      }
      assertThat(Alerts.RAISED).singleElement().satisfies(dead -> {
        assertThat(dead.id()).isEqualTo(ids.get(0));
        assertThat(dead.groupKey()).isEqualTo("order:7");
        assertThat(dead.attempts()).isEqualTo(1);
        assertThat(dead.lastError()).startsWith("permanent: the relay marked it permanent:"
            + " dev.outboxer.spi.PermanentRelayFailure: induced permanent failure of message " + ids.get(0));
      });
      assertThat(relay.confirmed()).extracting(record -> record.id()).containsExactly(ids.get(1));
    }
  }
}
