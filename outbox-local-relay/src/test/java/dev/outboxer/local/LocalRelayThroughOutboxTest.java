package dev.outboxer.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.DeadMessage;
import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.OutboxMessage;
import dev.outboxer.local.HandlerScript.Call;
import dev.outboxer.local.HandlerScript.Failure;
import dev.outboxer.testing.OutboxTables;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;

/**
 * The local relay driven by the real core on PostgreSQL: messages published through {@link Outbox}
 * in JTA transactions, handed by the partition workers to the tests' handlers, which write an
 * {@link Effect} row through the outbox's EntityManager in the worker's transaction. What counts is
 * what is committed: the effect rows and the outbox rows, read with plain JDBC.
 *
 * <p>Outboxes: {@code orders} (group ordering, 4 partitions, max-attempts 3, a typed handler
 * selected by {@code @Outboxed}) and {@code ledger} (1 partition, strict, a raw handler named in
 * {@code outbox.ledger.local.handler}). Each test uses groups of its own (prefixed with the test's
 * name), so that a batch still in flight from an earlier test cannot disturb it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LocalRelayThroughOutboxTest {

  /** Generous: the tests share two cores with other builds. */
  private static final Duration WAIT = Duration.ofSeconds(90);

  private OutboxTestContainer container;
  private Outbox outbox;
  private OutboxAdmin admin;
  private HandlerScript script;
  private String prefix;

  @BeforeAll
  void start() {
    TestDatabase.POSTGRESQL.assumeAvailable();
    TestDatabase.POSTGRESQL.execute(Effect.DDL);
    Map<String, String> config = new LinkedHashMap<>();
    outboxConfig(config, "orders", 4, "3");
    outboxConfig(config, "ledger", 1, "infinity");
    config.put("outbox.ledger.local.handler", "ledgerHandler");
    // A handler slower than relay-timeout; the transaction outlives it (relay-timeout + 1.25s <= 5s).
    outboxConfig(config, "slow", 1, "2");
    config.put("outbox.slow.local.handler", "ledgerHandler");
    config.put("outbox.slow.relay-timeout", "1s");
    config.put("outbox.slow.transaction-timeout", "5s");
    container = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
        .config(config)
        .entities(Effect.class)
        .beans(HandlerScript.class, EffectWriter.class, TransactionalEffects.class, OrderEffects.class,
            LedgerHandler.class, OrderEvent.class)
        .start();
    outbox = container.select(Outbox.class);
    admin = container.select(OutboxAdmin.class);
    script = container.select(HandlerScript.class);
  }

  private static void outboxConfig(Map<String, String> config, String name, int partitions, String maxAttempts) {
    config.put("outbox." + name + ".relay", "local");
    config.put("outbox." + name + ".partitions", String.valueOf(partitions));
    config.put("outbox." + name + ".max-attempts", maxAttempts);
    // Short backoffs: a failed attempt is retried (and a rolled-back batch read again) within milliseconds.
    config.put("outbox." + name + ".backoff.min", "20ms");
    config.put("outbox." + name + ".backoff.max", "100ms");
    config.put("outbox." + name + ".batch-size", "50");
    config.put("outbox." + name + ".poll-interval", "20ms");
    config.put("outbox." + name + ".max-poll-interval", "200ms");
  }

  @AfterAll
  void stop() {
    if (container != null) {
      container.close();
    }
  }

  @BeforeEach
  void name(TestInfo test) {
    prefix = test.getTestMethod().orElseThrow().getName().replaceAll("[^a-z]", "").substring(0, 12) + "-";
  }

  @AfterEach
  void noViolations() {
    assertThat(script.violations()).as("effects applied twice or out of order").isEmpty();
  }

  @Test
  void each_message_is_handled_once_and_its_effect_commits_with_its_deletion() throws Exception {
    Map<String, List<Long>> published = publish("orders", 5, 6);

    await().atMost(WAIT).until(() -> countOf(prefix) == 30);
    await().atMost(WAIT).until(() -> pendingOf("orders") == 0);
    Map<String, List<Integer>> effects = effectsOf(prefix);
    published.forEach((group, ids) -> assertThat(effects.get(group)).as(group).containsExactly(1, 2, 3, 4, 5, 6));
    assertThat(script.calls(prefix)).hasSize(30).allMatch(call -> call.attempts() == 0);
  }

  @Test
  void a_handler_failing_on_the_third_message_stops_its_group_until_the_message_dies_or_succeeds() throws Exception {
    String dies = prefix + "dies";
    String recovers = prefix + "recovers";
    script.fail("orders", dies, 3, Failure.THROW_AFTER_WRITE, Integer.MAX_VALUE);
    script.fail("orders", recovers, 3, Failure.THROW_THROUGH_TRANSACTIONAL, 2);
    // Retries are due only when the test moves the clock: each group's state can be seen between attempts.
    container.clock().freeze();
    try {
      publish("orders", 8, 6);
      container.inTransaction(() -> {
        for (int seq = 1; seq <= 6; seq++) {
          outbox.publish(new OrderEvent(dies, seq));
          outbox.publish(new OrderEvent(recovers, seq));
        }
      });

      // The other groups finish; the two failing groups stop at their third message.
      await().atMost(WAIT).until(() -> countOf(prefix) == 8 * 6 + 4
          && attemptsOf(dies, 3) == 1 && attemptsOf(recovers, 3) == 1);
      Map<String, List<Integer>> stopped = effectsOf(prefix);
      assertThat(stopped.get(dies)).containsExactly(1, 2);
      assertThat(stopped.get(recovers)).containsExactly(1, 2);
      assertThat(stopped).hasSize(10).allSatisfy((group, seqs) -> {
        if (!group.equals(dies) && !group.equals(recovers)) {
          assertThat(seqs).as(group).containsExactly(1, 2, 3, 4, 5, 6);
        }
      });
      assertThat(script.callsOf("orders", dies, 4)).as("held back behind the failed third").isZero();

      for (int attempt = 2; attempt <= 3; attempt++) {
        container.clock().advance(Duration.ofMinutes(1));
        int expected = attempt;
        // Both groups retry after each step of the clock (their partitions have workers of their own).
        await().atMost(WAIT).until(() -> script.callsOf("orders", dies, 3) == expected
            && script.callsOf("orders", recovers, 3) == expected);
      }

      // The third attempt killed dies/3 (max-attempts=3) and its group moved on; recovers/3 succeeded and its group
      // went on, in order.
      await().atMost(WAIT).until(() -> effectsOf(prefix).get(dies).size() == 5 && effectsOf(prefix).get(recovers).size() == 6);
      Map<String, List<Integer>> effects = effectsOf(prefix);
      assertThat(effects.get(dies)).containsExactly(1, 2, 4, 5, 6);
      assertThat(effects.get(recovers)).containsExactly(1, 2, 3, 4, 5, 6);
      assertThat(script.callsOf("orders", recovers, 3)).isEqualTo(3);
      assertThat(handledAfter(dies, 4, dies, 3)).as("dies/4 only after dies/3 died").isTrue();
      assertThat(handledAfter(recovers, 4, recovers, 3)).as("recovers/4 only after recovers/3 succeeded").isTrue();
      List<DeadMessage> dead = admin.dead("orders", 100).stream().filter(m -> dies.equals(m.groupKey())).toList();
      assertThat(dead).singleElement().satisfies(message -> {
        assertThat(message.attempts()).isEqualTo(3);
        assertThat(message.lastError()).contains("induced failure of " + dies + "/3 after its write");
      });
    } finally {
      container.clock().unfreeze();
    }
  }

  @Test
  void per_group_order_holds_with_several_partitions_and_threads_while_handlers_fail() throws Exception {
    int groups = 16;
    int perGroup = 16;
    // About one message in twelve fails once: every failure rolls back a batch and has it handed over again.
    for (int group = 0; group < groups; group++) {
      for (int seq = 1; seq <= perGroup; seq++) {
        if ((group * 7 + seq * 5) % 12 == 0) {
          script.fail("orders", prefix + group, seq, seq % 2 == 0 ? Failure.THROW_AFTER_WRITE
              : Failure.THROW_THROUGH_TRANSACTIONAL, 1);
        }
      }
    }
    // Four publishers, each owning four groups, publish interleaved in transactions of 8 messages.
    ExecutorService publishers = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int publisher = 0; publisher < 4; publisher++) {
        int first = publisher * groups / 4;
        done.add(publishers.submit(() -> {
          for (int seq = 1; seq <= perGroup; seq += 2) {
            int from = seq;
            container.inTransaction(() -> {
              for (int s = from; s < from + 2; s++) {
                for (int group = first; group < first + groups / 4; group++) {
                  outbox.publish(new OrderEvent(prefix + group, s));
                }
              }
            });
          }
          return null;
        }));
      }
      for (Future<?> each : done) {
        each.get();
      }
    } finally {
      publishers.shutdown();
    }

    await().atMost(WAIT).until(() -> countOf(prefix) == groups * perGroup);
    await().atMost(WAIT).until(() -> pendingOf("orders") == 0);
    List<Integer> inOrder = new ArrayList<>();
    for (int seq = 1; seq <= perGroup; seq++) {
      inOrder.add(seq);
    }
    Map<String, List<Integer>> effects = effectsOf(prefix);
    assertThat(effects).hasSize(groups).allSatisfy((group, seqs) -> assertThat(seqs).as(group).isEqualTo(inOrder));
    List<Call> calls = script.calls(prefix);
    assertThat(calls).as("some handlers ran twice: their first run was rolled back").hasSizeGreaterThan(groups * perGroup);
    assertThat(calls.stream().map(Call::thread).distinct().count()).as("worker threads").isGreaterThan(1);
    assertThat(distinctPartitionsOf(prefix)).as("partitions that committed effects").isEqualTo(4);
  }

  @Test
  void when_the_commit_fails_after_the_handlers_ran_their_work_is_applied_once() throws Exception {
    String group = prefix + "commit";
    script.fail("orders", group, 2, Failure.FAIL_COMMIT, 1);
    container.inTransaction(() -> {
      for (int seq = 1; seq <= 4; seq++) {
        outbox.publish(new OrderEvent(group, seq));
      }
    });

    await().atMost(WAIT).until(() -> effectsOf(prefix).getOrDefault(group, List.of()).size() == 4);
    await().atMost(WAIT).until(() -> pendingOf("orders") == 0);
    assertThat(effectsOf(prefix).get(group)).containsExactly(1, 2, 3, 4);
    // The batch of all four ran, its commit failed (nothing of it happened), and it ran again.
    for (int seq = 1; seq <= 4; seq++) {
      assertThat(script.callsOf("orders", group, seq)).as("calls of " + seq).isEqualTo(2);
    }
    assertThat(script.calls(prefix)).as("a failed commit is no failed attempt").allMatch(call -> call.attempts() == 0);
  }

  @Test
  void when_the_workers_connection_dies_at_commit_the_work_is_applied_once() throws Exception {
    String group = prefix + "killed";
    script.fail("orders", group, 1, Failure.KILL_CONNECTION_AT_COMMIT, 1);
    container.inTransaction(() -> {
      for (int seq = 1; seq <= 3; seq++) {
        outbox.publish(new OrderEvent(group, seq));
      }
    });

    await().atMost(WAIT).until(() -> effectsOf(prefix).getOrDefault(group, List.of()).size() == 3);
    await().atMost(WAIT).until(() -> pendingOf("orders") == 0);
    assertThat(effectsOf(prefix).get(group)).containsExactly(1, 2, 3);
    assertThat(script.callsOf("orders", group, 1)).isEqualTo(2);
  }

  @Test
  void after_a_failure_only_the_handlers_before_it_in_the_batch_run_again() throws Exception {
    // One partition, one transaction: the six messages are one batch, in this order.
    String[] groups = {"a", "b", "fails", "c", "fails", "d"};
    int[] seqs = {1, 1, 1, 1, 2, 1};
    script.fail("ledger", prefix + "fails", 1, Failure.THROW_AFTER_WRITE, 1);
    container.inTransaction(() -> {
      for (int i = 0; i < groups.length; i++) {
        outbox.publish("ledger", new OrderEvent(prefix + groups[i], seqs[i]));
      }
    });

    await().atMost(WAIT).until(() -> countOf(prefix) == 6);
    await().atMost(WAIT).until(() -> pendingOf("ledger") == 0);
    // a and b ran before the failure in the rolled-back batch: again. c and d were not run in it: once.
    assertThat(script.callsOf("ledger", prefix + "a", 1)).isEqualTo(2);
    assertThat(script.callsOf("ledger", prefix + "b", 1)).isEqualTo(2);
    assertThat(script.callsOf("ledger", prefix + "fails", 1)).isEqualTo(2);
    assertThat(script.callsOf("ledger", prefix + "fails", 2)).isEqualTo(1);
    assertThat(script.callsOf("ledger", prefix + "c", 1)).isEqualTo(1);
    assertThat(script.callsOf("ledger", prefix + "d", 1)).isEqualTo(1);
    // ... and they were not counted as failed: only the failing message has an attempt on record.
    assertThat(script.calls(prefix)).allSatisfy(call -> assertThat(call.attempts())
        .as(call.group() + "/" + call.seq()).isEqualTo(call.group().endsWith("fails") && call.seq() == 1
            && call.failure() == null ? 1 : 0));
    assertThat(effectsOf(prefix).get(prefix + "fails")).containsExactly(1, 2);
  }

  @Test
  void a_handler_that_swallows_a_rolled_back_call_fails_its_message() throws Exception {
    String group = prefix + "swallow";
    script.fail("orders", group, 1, Failure.SWALLOW_ROLLBACK, Integer.MAX_VALUE);
    container.inTransaction(() -> {
      outbox.publish(new OrderEvent(group, 1));
      outbox.publish(new OrderEvent(group, 2));
    });

    await().atMost(WAIT).until(() -> effectsOf(prefix).getOrDefault(group, List.of()).size() == 1);
    assertThat(effectsOf(prefix).get(group)).containsExactly(2);
    List<DeadMessage> dead = admin.dead("orders", 100).stream().filter(m -> group.equals(m.groupKey())).toList();
    assertThat(dead).singleElement().satisfies(message -> assertThat(message.lastError())
        .contains(LocalRelayException.class.getName())
        .contains("returned normally from message " + message.id())
        .contains("left the transaction marked for rollback"));
  }

  @Test
  void a_message_type_without_handler_fails_alone_and_the_batch_goes_on() throws Exception {
    String group = prefix + "typed";
    long unhandled = container.inTransaction(() -> {
      outbox.publish(new OrderEvent(group, 1));
      long id = outbox.publish("orders", new Unhandled(group + "-other"));
      outbox.publish(new OrderEvent(group, 2));
      return id;
    });

    await().atMost(WAIT).until(() -> admin.dead("orders", 100).stream().anyMatch(m -> m.id() == unhandled));
    await().atMost(WAIT).until(() -> effectsOf(prefix).getOrDefault(group, List.of()).size() == 2);
    DeadMessage dead = admin.dead("orders", 100).stream().filter(m -> m.id() == unhandled).findFirst().orElseThrow();
    assertThat(dead.lastError()).contains("Outbox 'orders' has no local handler for message type 'Unhandled' (message "
        + unhandled + ")");
    // Nothing was written for it, so nothing was rolled back: the others ran once.
    assertThat(script.callsOf("orders", group, 1)).isEqualTo(1);
    assertThat(script.callsOf("orders", group, 2)).isEqualTo(1);
  }

  @Test
  void a_write_the_database_refuses_only_at_flush_fails_the_message_that_made_it() throws Exception {
    // Left to the commit, the refusal would fail every batch of the partition, blamed on no message.
    String group = prefix + "refused";
    script.fail("orders", group, 1, Failure.REFUSED_AT_FLUSH, Integer.MAX_VALUE);
    container.inTransaction(() -> {
      for (int seq = 1; seq <= 3; seq++) {
        outbox.publish(new OrderEvent(group, seq));
      }
    });

    await().atMost(WAIT).until(() -> effectsOf(prefix).getOrDefault(group, List.of()).size() == 2);
    assertThat(effectsOf(prefix).get(group)).containsExactly(2, 3);
    DeadMessage dead = admin.dead("orders", 100).stream().filter(m -> group.equals(m.groupKey())).findFirst()
        .orElseThrow();
    assertThat(dead.attempts()).isEqualTo(3);
    assertThat(dead.lastError()).contains("local_effect_seq_check");
  }

  @Test
  void a_handler_slower_than_the_relay_timeout_is_charged_an_attempt_and_dies_while_other_groups_flow()
      throws Exception {
    // One partition: the slow message comes first in the batch, the other groups after it.
    String slow = prefix + "slow";
    script.fail("slow", slow, 1, Failure.SLOW_AFTER_WRITE, Integer.MAX_VALUE);
    container.clock().freeze();
    try {
      container.inTransaction(() -> {
        outbox.publish("slow", new OrderEvent(slow, 1));
        outbox.publish("slow", new OrderEvent(slow, 2));
        for (int group = 0; group < 3; group++) {
          outbox.publish("slow", new OrderEvent(prefix + group, 1));
        }
      });

      // The timed-out attempt is charged (its retry waits for the clock), and the other groups go out meanwhile.
      await().atMost(WAIT).until(() -> attemptsOf("slow", slow, 1) == 1 && countOf(prefix) == 3);
      assertThat(effectsOf(prefix)).as("slow/1's write was rolled back; slow/2 waits behind it")
          .doesNotContainKey(slow).hasSize(3);
      assertThat(lastErrorOf("slow", slow, 1)).contains("did not report within outbox.slow.relay-timeout=1s");

      // Its second attempt times out too: max-attempts=2, it dies and its group moves on.
      container.clock().advance(Duration.ofMinutes(1));
      await().atMost(WAIT).until(() -> effectsOf(prefix).getOrDefault(slow, List.of()).size() == 1);
      assertThat(effectsOf(prefix).get(slow)).containsExactly(2);
      assertThat(script.callsOf("slow", slow, 1)).isEqualTo(2);
      List<DeadMessage> dead = admin.dead("slow", 100).stream().filter(m -> slow.equals(m.groupKey())).toList();
      assertThat(dead).singleElement().satisfies(message -> {
        assertThat(message.attempts()).isEqualTo(2);
        assertThat(message.lastError()).contains("RelayTimeoutException")
            .contains("did not report within outbox.slow.relay-timeout=1s");
      });
      await().atMost(WAIT).until(() -> pendingOf("slow") == 0);
    } finally {
      container.clock().unfreeze();
    }
  }

  @Test
  void a_handler_that_returns_within_the_last_100ms_before_the_relay_timeout_is_charged_an_attempt() throws Exception {
    // The relay stops 100 ms before relay-timeout: a handler that returns inside that margin gets its transaction
    // rolled back, so its message must count as failed, not as confirmed, or it is run again forever with 0 attempts.
    String late = prefix + "late";
    script.fail("slow", late, 1, Failure.SLOW_INTO_THE_MARGIN, Integer.MAX_VALUE);
    container.clock().freeze();
    try {
      // A first message warms the handler's path up (class loading, the first statements), so that the late one,
      // alone in its batch, starts right after the batch's deadline is set.
      String warm = prefix + "warm";
      container.inTransaction(() -> outbox.publish("slow", new OrderEvent(warm, 1)));
      await().atMost(Duration.ofSeconds(20)).until(() -> effectsOf(prefix).containsKey(warm));
      container.inTransaction(() -> outbox.publish("slow", new OrderEvent(late, 1)));

      await().atMost(Duration.ofSeconds(20)).until(() -> attemptsOf("slow", late, 1) == 1);
      assertThat(effectsOf(prefix)).as("the late handler's write was rolled back").doesNotContainKey(late);
      // Reported failed by the relay; or, had the worker stopped listening first, charged for its timeout.
      assertThat(lastErrorOf("slow", late, 1)).as("last error of the late message").containsAnyOf(
          "less than 100ms before outbox.slow.relay-timeout ran out", "did not report within outbox.slow.relay-timeout");
    } finally {
      container.clock().unfreeze();
    }
  }

  /** A message type no handler takes. */
  public record Unhandled(String key) implements OutboxMessage {
    @Override
    public String groupKey() {
      return key;
    }
  }

  /** Publishes seq 1..perGroup of each group, interleaved, in one transaction per round. */
  private Map<String, List<Long>> publish(String outboxName, int groups, int perGroup) throws Exception {
    Map<String, List<Long>> ids = new TreeMap<>();
    for (int seq = 1; seq <= perGroup; seq++) {
      int current = seq;
      container.inTransaction(() -> {
        for (int group = 0; group < groups; group++) {
          String key = prefix + group;
          ids.computeIfAbsent(key, k -> new ArrayList<>()).add(outbox.publish(outboxName, new OrderEvent(key, current)));
        }
      });
    }
    return ids;
  }

  /** The committed effects of the groups with this prefix: seq numbers per group, in the order they were written. */
  private Map<String, List<Integer>> effectsOf(String groupPrefix) throws SQLException {
    Map<String, List<Integer>> effects = new TreeMap<>();
    try (Connection connection = TestDatabase.POSTGRESQL.connect();
        PreparedStatement statement = connection.prepareStatement(
            "SELECT group_key, seq FROM local_effect WHERE group_key LIKE ? ORDER BY id")) {
      statement.setString(1, groupPrefix + "%");
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          effects.computeIfAbsent(rows.getString(1), k -> new ArrayList<>()).add(rows.getInt(2));
        }
      }
    }
    return effects;
  }

  private int countOf(String groupPrefix) throws SQLException {
    return effectsOf(groupPrefix).values().stream().mapToInt(List::size).sum();
  }

  private int distinctPartitionsOf(String groupPrefix) throws SQLException {
    try (Connection connection = TestDatabase.POSTGRESQL.connect();
        PreparedStatement statement = connection.prepareStatement(
            "SELECT COUNT(DISTINCT partition_no) FROM local_effect WHERE group_key LIKE ?")) {
      statement.setString(1, groupPrefix + "%");
      try (ResultSet rows = statement.executeQuery()) {
        rows.next();
        return rows.getInt(1);
      }
    }
  }

  private long pendingOf(String outboxName) {
    return admin.counts(outboxName).pending();
  }

  /** Failed attempts on record for a pending message of the orders outbox. */
  private int attemptsOf(String group, int seq) {
    return attemptsOf("orders", group, seq);
  }

  /** Failed attempts on record for a pending message. */
  private int attemptsOf(String outboxName, String group, int seq) {
    return pendingRow(outboxName, group, seq).attempts();
  }

  private String lastErrorOf(String outboxName, String group, int seq) {
    return pendingRow(outboxName, group, seq).lastError();
  }

  private OutboxTables.StoredMessage pendingRow(String outboxName, String group, int seq) {
    return container.tables().messages(outboxName).stream()
        .filter(row -> group.equals(row.groupKey()) && new String(row.payload()).contains("\"seq\":" + seq))
        .findFirst().orElseThrow();
  }

  /** Whether the first call of (group, seq) came after the last call of (earlierGroup, earlierSeq). */
  private boolean handledAfter(String group, int seq, String earlierGroup, int earlierSeq) {
    List<Call> calls = script.calls(prefix);
    long first = calls.stream().filter(c -> c.group().equals(group) && c.seq() == seq).mapToLong(Call::nanos).min()
        .orElseThrow();
    long lastEarlier = calls.stream().filter(c -> c.group().equals(earlierGroup) && c.seq() == earlierSeq)
        .mapToLong(Call::nanos).max().orElseThrow();
    return first > lastEarlier;
  }
}
