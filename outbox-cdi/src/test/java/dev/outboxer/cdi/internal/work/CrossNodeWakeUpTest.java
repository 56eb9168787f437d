package dev.outboxer.cdi.internal.work;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.cdi.internal.Keyed;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A message published on a node without workers reaches the worker of another node at once through
 * PostgreSQL's LISTEN/NOTIFY, not at that worker's next poll; with {@code outbox.wake-up=poll} it
 * waits for the poll.
 */
class CrossNodeWakeUpTest {

  /** Long enough that a relay within {@link #WOKEN_WITHIN} can only come from a wake-up. */
  private static final String IDLE_POLL = "20s";
  private static final Duration WOKEN_WITHIN = Duration.ofSeconds(3);

  @Test
  void a_publish_on_a_node_without_workers_wakes_the_worker_of_another_node() throws Exception {
    try (OutboxTestContainer workerNode = node("executor", "notify", true);
        OutboxTestContainer publishNode = node("none", "notify", false)) {
      RecordingRelay relay = workerNode.select(RecordingRelay.class);
      Outbox outbox = publishNode.select(Outbox.class);
      awaitFirstIdlePoll(workerNode);

      long[] millis = new long[10];
      for (int i = 0; i < millis.length; i++) {
        int expected = i + 1;
        long start = System.nanoTime();
        publishNode.inTransaction(() -> outbox.publish("orders", new Keyed("group-" + expected % 3, expected)));
        await().atMost(WOKEN_WITHIN).pollInterval(Duration.ofMillis(1))
            .until(() -> relay.confirmed().size() == expected);
        millis[i] = (System.nanoTime() - start) / 1_000_000;
      }
      Arrays.sort(millis);
      assertThat(millis[millis.length - 1]).as("every publish relayed by the other node long before its poll (ms: "
          + Arrays.toString(millis) + ")").isLessThan(WOKEN_WITHIN.toMillis());
    }
  }

  @Test
  void with_wake_up_poll_the_other_node_finds_the_message_only_at_its_poll() throws Exception {
    try (OutboxTestContainer workerNode = node("executor", "poll", true);
        OutboxTestContainer publishNode = node("none", "poll", false)) {
      RecordingRelay relay = workerNode.select(RecordingRelay.class);
      Outbox outbox = publishNode.select(Outbox.class);
      awaitFirstIdlePoll(workerNode);

      publishNode.inTransaction(() -> outbox.publish("orders", new Keyed("g", 1)));
      Thread.sleep(WOKEN_WITHIN.toMillis());
      assertThat(relay.confirmed()).as("no wake-up: the worker sleeps until its next poll").isEmpty();
    }
  }

  @Test
  void a_notification_names_the_outbox_and_partitions_and_falls_back_to_all_when_too_long() {
    assertThat(CrossNodeWakeUp.payload("i-1", "orders", Set.of(3))).isEqualTo("i-1 orders 3");
    Set<Integer> many = new java.util.TreeSet<>();
    for (int p = 0; p < 2000; p++) {
      many.add(p);
    }
    assertThat(CrossNodeWakeUp.payload("i-1", "orders", many)).isEqualTo("i-1 orders *");
  }

  private static OutboxTestContainer node(String worker, String wakeUp, boolean fresh) {
    OutboxTestContainer.Builder builder = OutboxTestContainer.builder(TestDatabase.POSTGRESQL).viaDataSource()
        .config("outbox.worker", worker)
        .config("outbox.wake-up", wakeUp)
        .config("outbox.orders.relay", "recording")
        .config("outbox.orders.partitions", "2")
        .config("outbox.orders.poll-interval", IDLE_POLL)
        .config("outbox.orders.max-poll-interval", IDLE_POLL)
        .beans(RecordingRelay.class);
    return (fresh ? builder : builder.keepSchema()).start();
  }

  /** The worker's first poll happens at start; after it the worker sleeps for {@link #IDLE_POLL}. */
  private static void awaitFirstIdlePoll(OutboxTestContainer workerNode) {
    OutboxAdmin admin = workerNode.select(OutboxAdmin.class);
    await().atMost(Duration.ofSeconds(30)).until(() -> admin.workers().stream()
        .allMatch(worker -> worker.lastRunEnded() != null && !worker.running()));
  }
}
