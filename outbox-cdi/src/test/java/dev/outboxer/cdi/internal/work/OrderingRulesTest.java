package dev.outboxer.cdi.internal.work;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.DeadMessage;
import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.OutboxCounts;
import dev.outboxer.cdi.internal.Keyed;
import dev.outboxer.cdi.internal.store.GroupHash;
import dev.outboxer.testing.OutboxTables.StoredMessage;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Every ordering and failure rule of the seed, one test each, with real workers on PostgreSQL (and
 * on the databases of the subclasses). The relay records what it is handed and fails on command;
 * time moves by stepping the container's clock past retry times, then waking the workers.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OrderingRulesTest {

  private static final Duration WAIT = Duration.ofSeconds(20);

  private OutboxTestContainer container;
  private Outbox outbox;
  private OutboxAdmin admin;
  private RecordingRelay relay;
  private Workers workers;

  /** The database the rules are proven on. */
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }

  @BeforeAll
  void start() {
    Map<String, String> config = new LinkedHashMap<>();
    outboxConfig(config, "orders", "group", 4, "infinity");
    outboxConfig(config, "audit", "total", 1, "infinity");
    outboxConfig(config, "events", "none", 2, "2");
    outboxConfig(config, "letters", "group", 2, "3");
    outboxConfig(config, "quiet", "group", 1, "infinity");
    config.put("outbox.orders.relay-timeout", "2s");
    config.put("outbox.quiet.poll-interval", "10s");
    config.put("outbox.quiet.max-poll-interval", "10s");
    container = OutboxTestContainer.builder(database()).config(config).beans(RecordingRelay.class).start();
    outbox = container.select(Outbox.class);
    admin = container.select(OutboxAdmin.class);
    relay = container.select(RecordingRelay.class);
    workers = container.select(Workers.class);
  }

  private static void outboxConfig(Map<String, String> config, String name, String ordering, int partitions, String maxAttempts) {
    config.put("outbox." + name + ".relay", "recording");
    config.put("outbox." + name + ".ordering", ordering);
    config.put("outbox." + name + ".partitions", String.valueOf(partitions));
    config.put("outbox." + name + ".max-attempts", maxAttempts);
    config.put("outbox." + name + ".batch-size", "50");
    config.put("outbox." + name + ".poll-interval", "100ms");
    config.put("outbox." + name + ".max-poll-interval", "500ms");
  }

  @AfterAll
  void stop() {
    if (container != null) {
      container.close();
    }
  }

  /** Ids the relay fails; filled inside the publishing transaction, so before any worker can see them. */
  private final Set<Long> failing = ConcurrentHashMap.newKeySet();

  @BeforeEach
  void clean() throws Exception {
    // Rows first, then the relay: a message an earlier test left failing must not be relayed (and
    // counted) once the relay forgot to fail it. A batch read before the delete may still be in flight.
    container.tables().deleteAllMessages();
    await().atMost(WAIT).until(() -> relay.batchesInFlight() == 0);
    relay.reset();
    failing.clear();
    relay.failWhen(record -> failing.contains(record.id()));
  }

  @Test
  void messages_of_each_group_are_relayed_in_publish_order() throws Exception {
    Map<String, List<Long>> published = new LinkedHashMap<>();
    for (int transaction = 0; transaction < 20; transaction++) {
      int base = transaction * 100;
      container.inTransaction(() -> {
        for (int i = 0; i < 100; i++) {
          String group = "g" + (i % 40);
          published.computeIfAbsent(group, key -> new ArrayList<>()).add(outbox.publish("orders", new Keyed(group, base + i)));
        }
      });
    }

    boolean all = relay.awaitConfirmed(2000, WAIT);
    assertThat(all).as(() -> {
      java.util.Set<Long> missing = new java.util.TreeSet<>();
      published.values().forEach(missing::addAll);
      relay.confirmed().forEach(record -> missing.remove(record.id()));
      StringBuilder state = new StringBuilder();
      workers.activities().forEach(a -> state.append(" [p").append(a.partition()).append(" running=").append(a.running())
          .append(" sinceLast=").append(a.sinceLastActivityNanos() / 1_000_000).append("ms claimed=").append(a.lastClaimed())
          .append(" failure=").append(a.lastFailure()).append(']'));
      try (java.sql.Connection c = container.database().connect();
          java.sql.ResultSet r = c.createStatement().executeQuery("SELECT id, partition_no, status, next_attempt_at FROM"
              + " outbox_message WHERE outbox = 'orders' ORDER BY id LIMIT 20")) {
        while (r.next()) {
          state.append(" row ").append(r.getLong(1)).append("/p").append(r.getInt(2)).append('/').append(r.getString(3))
              .append('/').append(r.getString(4));
        }
      } catch (java.sql.SQLException e) {
        state.append(e);
      }
      return missing.size() + " of 2000 messages not relayed within " + WAIT + ": " + missing + state;
    }).isTrue();
    assertThat(confirmedIdsByGroup("orders")).isEqualTo(published);
    // The relay confirms a batch before its transaction deletes the rows and commits.
    await().atMost(WAIT).until(() -> admin.counts("orders").pending() == 0);
  }

  @Test
  void a_failing_message_holds_back_only_the_later_messages_of_its_group() throws Exception {
    List<Long> poison = new ArrayList<>();
    Map<String, List<Long>> others = new LinkedHashMap<>();
    List<Long> ungrouped = new ArrayList<>();
    container.inTransaction(() -> {
      for (int round = 0; round < 10; round++) {
        poison.add(outbox.publish("orders", new Keyed("poison", round)));
        for (int group = 0; group < 50; group++) {
          others.computeIfAbsent("g" + group, key -> new ArrayList<>()).add(outbox.publish("orders", new Keyed("g" + group, round)));
        }
        ungrouped.add(outbox.publish("orders", new Keyed(null, round)));
      }
      failing.add(poison.get(2));
    });
    long poisoned = poison.get(2);

    await().atMost(WAIT).until(() -> relay.confirmed().size() == 500 + 10 + 2);
    Map<String, List<Long>> confirmed = confirmedIdsByGroup("orders");
    others.forEach((group, ids) -> assertThat(confirmed.get(group)).as(group).isEqualTo(ids));
    assertThat(confirmed.get("null")).containsExactlyInAnyOrderElementsOf(ungrouped);
    assertThat(confirmed.get("poison")).containsExactly(poison.get(0), poison.get(1));

    // Other groups of the poisoned partition drained: the failure held back nothing but its own group.
    int poisonPartition = GroupHash.partition(GroupHash.partitionKey("poison"), 4);
    assertThat(others.keySet()).filteredOn(group -> GroupHash.partition(GroupHash.partitionKey(group), 4) == poisonPartition).isNotEmpty()
        .allSatisfy(group -> assertThat(confirmed.get(group)).hasSize(10));
    // ... even inside the batch that held the failing message.
    assertThat(relay.handed().stream().filter(record -> record.id() > poisoned && "poison".equals(record.groupKey())))
        .as("later poison messages were handed but held back").isNotEmpty();
    assertThat(relay.confirmed()).noneMatch(record -> "poison".equals(record.groupKey()) && record.id() > poisoned);
    // The relay records a confirmation before its batch commits: the last batch's rows may still be there for a moment.
    await().atMost(WAIT).untilAsserted(() -> assertThat(admin.counts("orders").pending()).isEqualTo(8));
    OutboxCounts counts = admin.counts("orders");
    assertThat(counts.retrying()).isEqualTo(1);
    assertThat(row(poisoned).lastError()).contains("induced failure of message " + poisoned);
    assertThat(row(poison.get(3)).attempts()).as("held back, not attempted").isZero();

    // Fixed: after the retry time the group goes on, in order.
    failing.clear();
    stepPastRetries("orders");
    await().atMost(WAIT).until(() -> confirmedIdsByGroup("orders").get("poison").size() == 10);
    assertThat(confirmedIdsByGroup("orders").get("poison")).isEqualTo(poison);
  }

  @Test
  void a_message_without_group_key_neither_blocks_nor_is_blocked() throws Exception {
    List<Long> ids = new ArrayList<>();
    container.inTransaction(() -> {
      ids.add(outbox.publish("orders", new Keyed("blocked", 0)));
      ids.add(outbox.publish("orders", new Keyed(null, 1)));
      for (int i = 2; i < 12; i++) {
        ids.add(outbox.publish("orders", new Keyed(i % 2 == 0 ? null : "blocked", i)));
      }
      failing.add(ids.get(0));
      failing.add(ids.get(1));
    });
    long failingUngrouped = ids.get(1);

    // Every ungrouped message but the failing one goes out, though the group "blocked" is stuck.
    await().atMost(WAIT).until(() -> relay.confirmed().size() == 5);
    assertThat(relay.confirmed()).allMatch(record -> record.groupKey() == null && record.id() != failingUngrouped);
    assertThat(admin.counts("orders").pending()).isEqualTo(7);
  }

  @Test
  void total_ordering_stops_everything_behind_a_failing_message() throws Exception {
    List<Long> ids = new ArrayList<>();
    container.inTransaction(() -> {
      for (int i = 0; i < 10; i++) {
        ids.add(outbox.publish("audit", new Keyed(i % 3 == 0 ? null : "k" + i, i)));
      }
      failing.add(ids.get(2));
    });
    long failed = ids.get(2);

    await().atMost(WAIT).until(() -> relay.confirmed().size() == 2);
    for (int retry = 0; retry < 3; retry++) {
      int handedBefore = timesHanded(failed);
      stepPastRetries("audit");
      await().atMost(WAIT).until(() -> timesHanded(failed) > handedBefore);
    }
    assertThat(relay.confirmed()).extracting(OutboxRecord::id).containsExactly(ids.get(0), ids.get(1));
    assertThat(row(failed).attempts()).isGreaterThanOrEqualTo(3);

    assertThat(admin.discard("audit", failed)).isTrue();
    await().atMost(WAIT).until(() -> relay.confirmed().size() == 9);
    List<Long> expected = new ArrayList<>(ids);
    expected.remove(failed);
    assertThat(relay.confirmed()).extracting(OutboxRecord::id).isEqualTo(expected);
  }

  @Test
  void without_ordering_a_failure_holds_back_nothing() throws Exception {
    List<Long> ids = new ArrayList<>();
    container.inTransaction(() -> {
      for (int i = 0; i < 10; i++) {
        ids.add(outbox.publish("events", new Keyed("same-key", i)));
      }
      failing.add(ids.get(3));
    });

    await().atMost(WAIT).until(() -> relay.confirmed().size() == 9);
    assertThat(relay.confirmed()).extracting(OutboxRecord::id).doesNotContain(ids.get(3));
  }

  @Test
  void after_max_attempts_a_message_dies_its_group_moves_on_and_a_revived_message_keeps_its_id() throws Exception {
    List<Long> ids = new ArrayList<>();
    container.inTransaction(() -> {
      for (int i = 0; i < 3; i++) {
        ids.add(outbox.publish("letters", new Keyed("letter-group", i)));
      }
      failing.add(ids.get(1));
    });
    long poisoned = ids.get(1);

    await().atMost(WAIT).until(() -> relay.confirmed().size() == 1);
    for (int attempt = 2; attempt <= 3; attempt++) {
      int expectedAttempts = attempt - 1;
      await().atMost(WAIT).until(() -> row(poisoned).attempts() == expectedAttempts);
      stepPastRetries("letters");
    }
    // Third failure: dead, and the group moves on without it.
    await().atMost(WAIT).until(() -> relay.confirmed().size() == 2);
    assertThat(relay.confirmed()).extracting(OutboxRecord::id).containsExactly(ids.get(0), ids.get(2));
    List<DeadMessage> dead = admin.dead("letters", 10);
    assertThat(dead).singleElement().satisfies(message -> {
      assertThat(message.id()).isEqualTo(poisoned);
      assertThat(message.attempts()).isEqualTo(3);
      assertThat(message.groupKey()).isEqualTo("letter-group");
      assertThat(message.type()).isEqualTo("Keyed");
      assertThat(message.lastError()).contains("induced failure");
      assertThat(message.lastAttemptAt()).isNotNull();
    });
    OutboxCounts counts = admin.counts("letters");
    assertThat(counts.dead()).isEqualTo(1);
    assertThat(counts.pending()).isZero();

    failing.clear();
    assertThat(admin.retryDead("letters", poisoned)).isEqualTo(1);
    await().atMost(WAIT).until(() -> relay.confirmed().size() == 3);
    OutboxRecord revived = relay.confirmed().get(2);
    assertThat(revived.id()).as("revived as a new message of its group, after the ones relayed meanwhile")
        .isGreaterThan(ids.get(2));
    assertThat(revived.groupKey()).isEqualTo("letter-group");
    assertThat(relay.confirmed()).extracting(OutboxRecord::id).startsWith(ids.get(0), ids.get(2));
    assertThat(admin.counts("letters").dead()).isZero();
  }

  @Test
  void discarding_a_strictly_retried_message_unblocks_its_group() throws Exception {
    List<Long> ids = new ArrayList<>();
    container.inTransaction(() -> {
      ids.add(outbox.publish("orders", new Keyed("strict", 0)));
      ids.add(outbox.publish("orders", new Keyed("strict", 1)));
      failing.add(ids.get(0));
    });
    await().atMost(WAIT).until(() -> row(ids.get(0)).attempts() == 1);

    assertThat(admin.discard("orders", ids.get(0))).isTrue();
    await().atMost(WAIT).until(() -> relay.confirmed().size() == 1);
    assertThat(relay.confirmed().get(0).id()).isEqualTo(ids.get(1));
    assertThat(admin.discard("orders", ids.get(0))).as("already gone").isFalse();
  }

  @Test
  void backoff_doubles_from_min_to_max_and_a_message_is_not_retried_before_its_time() throws Exception {
    container.clock().freeze();
    try {
      long id = container.inTransaction(() -> {
        long published = outbox.publish("orders", new Keyed("backoff", 0));
        failing.add(published);
        return published;
      });
      List<Duration> delays = new ArrayList<>();
      for (int attempt = 1; attempt <= 8; attempt++) {
        int expected = attempt;
        await().atMost(WAIT).until(() -> row(id).attempts() == expected);
        StoredMessage row = row(id);
        Duration delay = Duration.between(row.lastAttemptAt(), row.nextAttemptAt());
        delays.add(delay);
        // A wake-up before the retry time reads nothing: the message is not due yet.
        int handed = timesHanded(id);
        workers.wakeAll("orders");
        assertThat(timesHanded(id)).isEqualTo(handed);
        container.clock().advance(delay);
        workers.wakeAll("orders");
      }
      assertThat(delays).extracting(Duration::toSeconds).containsExactly(1L, 2L, 4L, 8L, 16L, 32L, 60L, 60L);
    } finally {
      container.clock().unfreeze();
    }
  }

  @Test
  void a_relay_that_throws_fails_the_records_it_did_not_report_and_they_are_retried() throws Exception {
    relay.throwOnNextBatch(new IOException("broker unreachable"));
    long id = container.inTransaction(() -> outbox.publish("orders", new Keyed("thrown", 0)));

    await().atMost(WAIT).until(() -> row(id).attempts() == 1);
    assertThat(row(id).lastError()).contains("java.io.IOException: broker unreachable");
    stepPastRetries("orders");
    await().atMost(WAIT).until(() -> relay.confirmed().size() == 1);
    assertThat(relay.confirmed().get(0).attempts()).isEqualTo(1);
  }

  @Test
  void a_relay_that_hangs_past_its_timeout_fails_its_records_and_they_are_retried() throws Exception {
    CountDownLatch hanging = relay.hangOnNextBatch();
    List<Long> ids = new ArrayList<>();
    container.inTransaction(() -> {
      for (int i = 0; i < 3; i++) {
        ids.add(outbox.publish("orders", new Keyed("hang", i)));
      }
    });
    assertThat(hanging.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

    await().atMost(WAIT).until(() -> row(ids.get(0)).attempts() == 1);
    assertThat(row(ids.get(0)).lastError()).contains("did not report within outbox.orders.relay-timeout=2s");
    assertThat(row(ids.get(1)).attempts()).as("held back behind the timed-out head").isZero();
    stepPastRetries("orders");
    await().atMost(WAIT).until(() -> relay.confirmed().size() == 3);
    assertThat(relay.confirmed()).extracting(OutboxRecord::id).isEqualTo(ids);
  }

  @Test
  void a_record_the_relay_reports_nothing_for_counts_as_failed() throws Exception {
    Set<Long> silent = ConcurrentHashMap.newKeySet();
    relay.noOutcomeWhen(record -> silent.contains(record.id()));
    long id = container.inTransaction(() -> {
      long published = outbox.publish("orders", new Keyed("silent", 0));
      silent.add(published);
      return published;
    });

    await().atMost(WAIT).until(() -> row(id).attempts() == 1);
    assertThat(row(id).lastError()).contains("returned without reporting an outcome");
  }

  @Test
  void when_the_commit_after_delivery_fails_the_whole_batch_is_delivered_again_in_order() throws Exception {
    relay.failCommitOfNextBatch();
    List<Long> ids = new ArrayList<>();
    container.inTransaction(() -> {
      for (int i = 0; i < 5; i++) {
        ids.add(outbox.publish("orders", new Keyed("commit", i)));
      }
    });

    await().atMost(WAIT).until(() -> relay.confirmed().size() == 10);
    List<Long> twice = new ArrayList<>(ids);
    twice.addAll(ids);
    assertThat(relay.confirmed()).extracting(OutboxRecord::id).isEqualTo(twice);
    await().atMost(WAIT).until(() -> admin.counts("orders").pending() == 0);
    assertThat(relay.confirmed()).allMatch(record -> record.attempts() == 0);
  }

  @Test
  void a_partition_whose_commits_keep_failing_backs_off_and_a_publish_does_not_cut_the_backoff_short() throws Exception {
    relay.failCommitOfNextBatches(3);
    long first = container.inTransaction(() -> outbox.publish("orders", new Keyed("commits", 0)));
    await().atMost(WAIT).until(() -> timesHanded(first) == 1);
    long second = container.inTransaction(() -> outbox.publish("orders", new Keyed("commits", 1)));

    await().atMost(WAIT).until(() -> relay.confirmed().stream().filter(r -> r.id() == first).count() == 4);
    List<Long> starts = relay.spans().stream().filter(span -> span.outbox().equals("orders"))
        .map(RecordingRelay.BatchSpan::startNanos).sorted().toList();
    // Three failed commits: the partition is read again after 1s, 2s and 4s (backoff.min doubling).
    assertThat(starts).hasSizeGreaterThanOrEqualTo(4);
    assertThat(TimeUnit.NANOSECONDS.toMillis(starts.get(1) - starts.get(0))).isGreaterThanOrEqualTo(1000);
    assertThat(TimeUnit.NANOSECONDS.toMillis(starts.get(2) - starts.get(1))).isGreaterThanOrEqualTo(2000);
    assertThat(TimeUnit.NANOSECONDS.toMillis(starts.get(3) - starts.get(2))).isGreaterThanOrEqualTo(4000);
    assertThat(relay.firstHandedNanos(second) - relay.firstHandedNanos(first))
        .as("the wake-up of the second publish waited for the backoff").isGreaterThanOrEqualTo(TimeUnit.SECONDS.toNanos(1));
    await().atMost(WAIT).until(() -> admin.counts("orders").pending() == 0);
    assertThat(row(first)).isNull();
  }

  @Test
  void a_publish_wakes_the_worker_of_its_partition_well_before_the_poll_interval() throws Exception {
    List<Long> latencies = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      int sequence = i;
      long committedAt = System.nanoTime();
      long id = container.inTransaction(() -> outbox.publish("quiet", new Keyed("latency", sequence)));
      await().atMost(Duration.ofSeconds(5)).until(() -> relay.firstHandedNanos(id) != null);
      latencies.add(TimeUnit.NANOSECONDS.toMillis(relay.firstHandedNanos(id) - committedAt));
    }
    latencies.sort(Long::compare);
    // The poll interval is 10s: only the wake-up after commit explains deliveries this fast.
    assertThat(latencies.get(2)).as("median publish-to-relay latency in ms, of " + latencies).isLessThan(1000);
  }

  private Map<String, List<Long>> confirmedIdsByGroup(String outboxName) {
    return relay.confirmed().stream().filter(record -> record.outbox().equals(outboxName))
        .collect(Collectors.groupingBy(record -> String.valueOf(record.groupKey()), LinkedHashMap::new,
            Collectors.mapping(OutboxRecord::id, Collectors.toList())));
  }

  private int timesHanded(long id) {
    return (int) relay.handed().stream().filter(record -> record.id() == id).count();
  }

  private StoredMessage row(long id) {
    return container.tables().message(id).orElse(null);
  }

  private void stepPastRetries(String outboxName) {
    container.clock().advance(Duration.ofMinutes(2));
    workers.wakeAll(outboxName);
  }
}
