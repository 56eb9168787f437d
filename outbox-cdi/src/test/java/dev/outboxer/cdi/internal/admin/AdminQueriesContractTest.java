package dev.outboxer.cdi.internal.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.BlockedGroup;
import dev.outboxer.DeadMessage;
import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.PartitionStatus;
import dev.outboxer.cdi.internal.Eventually;
import dev.outboxer.cdi.internal.Keyed;
import dev.outboxer.cdi.internal.Rows;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The read side of {@link OutboxAdmin} an operator console is built on, on a real database with
 * real workers: the configured outboxes, the partitions with their last claim, the blocked groups,
 * dead messages page by page and by group, and the group-wide retry and discard.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AdminQueriesContractTest {

  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String NODE = "admin-queries-node";

  private OutboxTestContainer container;
  private Outbox outbox;
  private OutboxAdmin admin;
  private RecordingRelay relay;
  private final Set<String> failingGroups = ConcurrentHashMap.newKeySet();

  abstract TestDatabase database();

  @BeforeAll
  void start() {
    container = OutboxTestContainer.builder(database())
        .config("outbox.node-id", NODE)
        // dead after one failure
        .config("outbox.orders.relay", "recording")
        .config("outbox.orders.partitions", "2")
        .config("outbox.orders.max-attempts", "1")
        .config("outbox.orders.poll-interval", "100ms")
        .config("outbox.orders.max-poll-interval", "200ms")
        // retried forever, a minute apart: a failing group stays blocked
        .config("outbox.audit.relay", "recording")
        .config("outbox.audit.backoff.min", "1m")
        .config("outbox.audit.backoff.max", "1m")
        .config("outbox.audit.poll-interval", "100ms")
        .config("outbox.audit.max-poll-interval", "200ms")
        .beans(RecordingRelay.class)
        .start();
    outbox = container.select(Outbox.class);
    admin = container.select(OutboxAdmin.class);
    relay = container.select(RecordingRelay.class);
    relay.failWhen(record -> failingGroups.contains(record.groupKey()));
  }

  @AfterAll
  void stop() {
    if (container != null) {
      container.close();
    }
  }

  @BeforeEach
  @AfterEach
  void clean() {
    failingGroups.clear();
    Rows.clear(database());
  }

  @Test
  void outboxes_are_the_configured_names_sorted() {
    assertThat(admin.outboxes()).containsExactly("audit", "orders");
  }

  @Test
  void every_partition_in_force_is_listed_with_the_node_token_and_time_of_its_last_claim() throws Exception {
    Instant before = Instant.now().minusSeconds(1);
    container.inTransaction(() -> {
      for (int group = 0; group < 20; group++) {
        outbox.publish("orders", new Keyed("g" + group, 1));
      }
    });
    Eventually.until(WAIT, "both partitions claimed and drained", () -> admin.partitions("orders").stream()
        .allMatch(p -> NODE.equals(p.owner()) && p.pending() == 0), () -> admin.partitions("orders").toString());

    List<PartitionStatus> partitions = admin.partitions("orders");
    assertThat(partitions).extracting(PartitionStatus::partition).containsExactly(0, 1);
    for (PartitionStatus partition : partitions) {
      assertThat(partition.fencingToken()).as("fencing token of " + partition).isPositive();
      assertThat(partition.lastClaimedAt()).as("last claim of " + partition).isAfter(before);
      assertThat(partition.retrying()).isZero();
    }
  }

  @Test
  void a_group_whose_head_waits_for_a_retry_is_listed_once_with_its_attempts_retry_time_and_error() throws Exception {
    failingGroups.add("stuck");
    List<Long> ids = container.inTransaction(() -> List.of(
        outbox.publish("audit", new Keyed("stuck", 1)),
        outbox.publish("audit", new Keyed("stuck", 2)),
        outbox.publish("audit", new Keyed("flowing", 1))));
    Eventually.until(WAIT, "the head of 'stuck' failed and 'flowing' was relayed",
        () -> admin.blockedGroups("audit", 10).size() == 1 && admin.counts("audit").pending() == 2,
        () -> admin.blockedGroups("audit", 10) + " " + admin.counts("audit"));

    BlockedGroup blocked = admin.blockedGroups("audit", 10).get(0);
    assertThat(blocked.groupKey()).isEqualTo("stuck");
    assertThat(blocked.messageId()).isEqualTo(ids.get(0));
    assertThat(blocked.attempts()).isEqualTo(1);
    assertThat(blocked.nextAttemptAt()).isAfter(container.clock().instant().plusSeconds(30));
    assertThat(blocked.lastError()).contains("induced failure of message " + ids.get(0));
    assertThat(admin.partitions("audit").get(0).retrying()).isEqualTo(1);
  }

  @Test
  void blocked_groups_are_listed_soonest_retry_first_and_at_most_limit() throws Exception {
    failingGroups.addAll(List.of("x", "y", "z"));
    for (String group : List.of("x", "y", "z")) {
      container.inTransaction(() -> outbox.publish("audit", new Keyed(group, 1)));
      Eventually.until(WAIT, "group " + group + " blocked",
          () -> admin.blockedGroups("audit", 10).stream().anyMatch(b -> group.equals(b.groupKey())),
          () -> admin.blockedGroups("audit", 10).toString());
    }
    assertThat(admin.blockedGroups("audit", 2)).extracting(BlockedGroup::groupKey).containsExactly("x", "y");
  }

  @Test
  void dead_messages_come_page_by_page_in_id_order_and_filtered_by_group() throws Exception {
    failingGroups.addAll(List.of("a", "b"));
    List<Long> ids = publishDead("a", "b", "a", "b", "a");
    List<Long> ofA = List.of(ids.get(0), ids.get(2), ids.get(4));

    assertThat(admin.dead("orders", null, 0, 10)).extracting(DeadMessage::id).containsExactlyElementsOf(ids);
    List<DeadMessage> first = admin.dead("orders", "a", 0, 2);
    assertThat(first).extracting(DeadMessage::id).containsExactly(ofA.get(0), ofA.get(1));
    List<DeadMessage> second = admin.dead("orders", "a", first.get(1).id(), 2);
    assertThat(second).extracting(DeadMessage::id).containsExactly(ofA.get(2));
    assertThat(admin.dead("orders", "a", second.get(0).id(), 2)).isEmpty();
    assertThat(first.get(0).attempts()).isEqualTo(1);
    assertThat(first.get(0).lastError()).contains("induced failure");
    assertThat(first.get(0).type()).isNotBlank();
  }

  @Test
  void retrying_a_dead_group_relays_it_and_discarding_one_removes_only_that_group() throws Exception {
    failingGroups.addAll(List.of("a", "b"));
    publishDead("a", "a", "b", "b");
    failingGroups.clear();
    int relayedBefore = relay.confirmed().size();

    assertThat(admin.retryDeadGroup("orders", "a")).isEqualTo(2);
    assertThat(admin.discardDeadGroup("orders", "b")).isEqualTo(2);

    Eventually.until(WAIT, "group a relayed", () -> relay.confirmed().size() - relayedBefore == 2,
        () -> relay.confirmed().toString());
    assertThat(relay.confirmed().subList(relayedBefore, relay.confirmed().size()))
        .allMatch(record -> "a".equals(record.groupKey()));
    // The relay confirms inside the batch; the rows go when the batch commits, a moment later.
    Eventually.until(WAIT, "group a's rows deleted", () -> admin.counts("orders").pending() == 0,
        () -> admin.counts("orders").toString());
    assertThat(admin.counts("orders").dead()).isZero();
    assertThat(admin.discardDeadGroup("orders", "b")).isZero();
  }

  /** Publishes one message per group key given, each in its own transaction, and waits until all are dead. */
  private List<Long> publishDead(String... groups) throws Exception {
    List<Long> ids = new ArrayList<>();
    for (String group : groups) {
      ids.add(container.inTransaction(() -> outbox.publish("orders", new Keyed(group, ids.size()))));
    }
    Eventually.until(WAIT, groups.length + " dead messages", () -> admin.counts("orders").dead() == groups.length,
        () -> admin.counts("orders").toString());
    return ids;
  }
}
