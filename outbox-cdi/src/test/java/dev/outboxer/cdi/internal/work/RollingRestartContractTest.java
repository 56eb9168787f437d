package dev.outboxer.cdi.internal.work;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.outboxer.Outbox;
import dev.outboxer.cdi.internal.Eventually;
import dev.outboxer.cdi.internal.Headered;
import dev.outboxer.cdi.internal.LogCapture;
import dev.outboxer.cdi.internal.Rows;
import dev.outboxer.cdi.internal.ScriptedRelay;
import dev.outboxer.cdi.internal.store.GroupHash;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.logging.Level;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Regression tests of issue 10 ("What happens today" 2; "Deliver" 2): a rolling restart that
 * changes {@code partitions} while a backlog is pending. Node A runs with the old count, node B
 * starts with the new one, both keep running: every message is relayed (none stranded in a
 * partition no worker serves), every group keeps its order, and the node whose configuration
 * disagrees with the stored count says so at WARNING, naming both values.
 */
abstract class RollingRestartContractTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  /** Records the relay fails (keeps pending) for now. */
  private final AtomicReference<Predicate<OutboxRecord>> holding = new AtomicReference<>(record -> false);
  private LogCapture logs;

  abstract TestDatabase database();

  @BeforeEach
  void clean() {
    logs = LogCapture.start();
    ScriptedRelay.reset();
    ScriptedRelay.script((batch, node) -> {
      for (OutboxRecord record : batch.records()) {
        if (batch.heldBack(record)) {
          continue;
        }
        if (holding.get().test(record)) {
          batch.fail(record, new IllegalStateException("held until the second node runs"));
        } else {
          ScriptedRelay.send(batch, record, node);
        }
      }
    });
  }

  @AfterEach
  void quiet() {
    ScriptedRelay.reset();
    logs.close();
  }

  private static OutboxTestContainer node(OutboxTestContainer.Builder builder, int partitions) {
    return builder
        .config("outbox.roll.relay", "scripted")
        .config("outbox.roll.partitions", String.valueOf(partitions))
        .config("outbox.roll.batch-size", "10")
        .config("outbox.roll.backoff.min", "100ms")
        .config("outbox.roll.backoff.max", "100ms")
        .config("outbox.roll.poll-interval", "50ms")
        .config("outbox.roll.max-poll-interval", "200ms")
        .beans(ScriptedRelay.class)
        .start();
  }

  @Test
  void lowering_the_partition_count_on_a_live_backlog_strands_no_message() throws Exception {
    Map<String, List<Long>> published = new LinkedHashMap<>();
    holding.set(record -> true);
    try (OutboxTestContainer nodeA = node(OutboxTestContainer.builder(database()), 4)) {
      publish(nodeA, published, "before", 100);
      AtomicReference<OutboxTestContainer> nodeB = new AtomicReference<>();
      Throwable refused = catchThrowable(() -> nodeB.set(node(OutboxTestContainer.builder(database()).keepSchema(), 2)));
      try (OutboxTestContainer started = nodeB.get()) {
        assertThat(refused).as("node B (partitions=2) starting beside node A (partitions=4) with a backlog").isNull();
        holding.set(record -> false);
        publish(nodeA, published, "after-a", 50);
        publish(started, published, "after-b", 50);
        assertAllRelayedInOrder(published);
        assertWarnedNamingBoth(4, 2);
      }
    }
  }

  @Test
  void raising_the_partition_count_while_a_group_has_pending_messages_keeps_the_group_in_order() throws Exception {
    // A group whose partition changes with the count: 2 partitions put it elsewhere than 4 do.
    String group = null;
    for (int i = 0; group == null; i++) {
      if (GroupHash.partition(GroupHash.partitionKey("order:" + i), 4) != GroupHash.partition(GroupHash.partitionKey("order:" + i), 2)) {
        group = "order:" + i;
      }
    }
    String movingGroup = group;
    holding.set(record -> movingGroup.equals(record.groupKey()));
    try (OutboxTestContainer nodeA = node(OutboxTestContainer.builder(database()), 2)) {
      long first = nodeA.inTransaction(() -> nodeA.select(Outbox.class).publish("roll", Headered.key(movingGroup)));
      Eventually.until(WAIT, "the group's first message is pending after a failed attempt",
          () -> Rows.attempts(database(), first) >= 1, () -> "row " + Rows.message(database(), first));
      AtomicReference<OutboxTestContainer> nodeB = new AtomicReference<>();
      Throwable refused = catchThrowable(() -> nodeB.set(node(OutboxTestContainer.builder(database()).keepSchema(), 4)));
      try (OutboxTestContainer started = nodeB.get()) {
        assertThat(refused).as("node B (partitions=4) starting beside node A (partitions=2) with a pending group")
            .isNull();
        long second = started.inTransaction(() -> started.select(Outbox.class).publish("roll", Headered.key(movingGroup)));
        long third = nodeA.inTransaction(() -> nodeA.select(Outbox.class).publish("roll", Headered.key(movingGroup)));
        // Give a wrong implementation time to relay the later messages first.
        Thread.sleep(1000);
        holding.set(record -> false);
        Map<String, List<Long>> published = new LinkedHashMap<>();
        published.put(movingGroup, List.of(first, second, third));
        assertAllRelayedInOrder(published);
        assertWarnedNamingBoth(2, 4);
      }
    }
  }

  @Test
  void a_node_lowering_the_count_of_an_empty_outbox_strands_nothing_the_running_node_publishes() throws Exception {
    // Nothing pending when node B starts: today B applies its count, and node A keeps publishing with its own.
    Map<String, List<Long>> published = new LinkedHashMap<>();
    try (OutboxTestContainer nodeA = node(OutboxTestContainer.builder(database()), 4);
        OutboxTestContainer nodeB = node(OutboxTestContainer.builder(database()).keepSchema(), 2)) {
      publish(nodeA, published, "a", 60);
      publish(nodeB, published, "b", 20);
      assertAllRelayedInOrder(published);
      assertWarnedNamingBoth(4, 2);
    }
  }

  @Test
  void a_node_raising_the_count_of_an_empty_outbox_keeps_groups_in_order_with_the_running_node() throws Exception {
    String group = null;
    for (int i = 0; group == null; i++) {
      if (GroupHash.partition(GroupHash.partitionKey("order:" + i), 4) != GroupHash.partition(GroupHash.partitionKey("order:" + i), 2)) {
        group = "order:" + i;
      }
    }
    String movingGroup = group;
    try (OutboxTestContainer nodeA = node(OutboxTestContainer.builder(database()), 2);
        OutboxTestContainer nodeB = node(OutboxTestContainer.builder(database()).keepSchema(), 4)) {
      // The first message, published by A, fails until the second one was published and had time to
      // go out; the second must wait for it.
      holding.set(record -> movingGroup.equals(record.groupKey()));
      long first = nodeA.inTransaction(() -> nodeA.select(Outbox.class).publish("roll", Headered.key(movingGroup)));
      Eventually.until(WAIT, "the group's first message failed once", () -> Rows.attempts(database(), first) >= 1,
          () -> "row " + Rows.message(database(), first));
      holding.set(record -> record.id() == first);
      long second = nodeB.inTransaction(() -> nodeB.select(Outbox.class).publish("roll", Headered.key(movingGroup)));
      Thread.sleep(1000);
      holding.set(record -> false);
      Map<String, List<Long>> published = new LinkedHashMap<>();
      published.put(movingGroup, List.of(first, second));
      assertAllRelayedInOrder(published);
      assertWarnedNamingBoth(2, 4);
    }
  }

  private static void publish(OutboxTestContainer node, Map<String, List<Long>> published, String prefix, int count)
      throws Exception {
    Outbox outbox = node.select(Outbox.class);
    for (int i = 0; i < count; i++) {
      String group = "group-" + i % 20;
      long id = node.inTransaction(() -> outbox.publish("roll", Headered.key(group)));
      published.computeIfAbsent(group, key -> new ArrayList<>()).add(id);
    }
  }

  private void assertAllRelayedInOrder(Map<String, List<Long>> published) {
    int total = published.values().stream().mapToInt(List::size).sum();
    Eventually.until(WAIT, "all " + total + " messages are relayed", () -> Rows.messages(database(), "roll") == 0,
        () -> Rows.query(database(), "SELECT partition_no, COUNT(*) AS n FROM outbox_message GROUP BY partition_no")
            + " left (by partition), partitions in force " + Rows.query(database(), "SELECT * FROM outbox_partition"));
    Map<String, List<Long>> delivered = ScriptedRelay.deliveredIdsByGroup();
    SoftAssertions softly = new SoftAssertions();
    published.forEach((group, ids) -> softly.assertThat(delivered.get(group)).as("order of group " + group)
        .isEqualTo(ids));
    softly.assertAll();
  }

  private void assertWarnedNamingBoth(int oldCount, int newCount) {
    assertThat(logs.messages(Level.WARNING)).as("WARNING records; " + logs.dump())
        .anySatisfy(message -> assertThat(message).contains("partitions")
            .containsPattern("\\b" + oldCount + "\\b").containsPattern("\\b" + newCount + "\\b"));
  }
}
