package dev.outboxer.cdi.internal.work;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Outbox;
import dev.outboxer.cdi.internal.Eventually;
import dev.outboxer.cdi.internal.Headered;
import dev.outboxer.cdi.internal.LogCapture;
import dev.outboxer.cdi.internal.Rows;
import dev.outboxer.cdi.internal.ScriptedRelay;
import dev.outboxer.cdi.internal.ScriptedRelay.Seen;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Regression tests of issue 10 ("What happens today" 1; "Deliver" 1): fenced partition claims.
 * Two nodes (two containers, each with its own pool, workers and relay bean) share one database.
 */
abstract class FencingContractTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  private LogCapture logs;

  abstract TestDatabase database();

  /**
   * Whether the scripted relay says it does not use the worker's transaction, and the nodes go
   * through the data source: the batches then run in plain database transactions.
   */
  boolean plainWorkerTransactions() {
    return false;
  }

  private OutboxTestContainer.Builder builder() {
    OutboxTestContainer.Builder builder = OutboxTestContainer.builder(database());
    return plainWorkerTransactions() ? builder.viaDataSource() : builder;
  }

  @BeforeEach
  void clean() {
    logs = LogCapture.start();
    ScriptedRelay.reset();
    ScriptedRelay.useWorkerTransaction(!plainWorkerTransactions());
  }

  @AfterEach
  void quiet() {
    ScriptedRelay.reset();
    ScriptedRelay.useWorkerTransaction(true);
    logs.close();
  }

  private OutboxTestContainer node(OutboxTestContainer.Builder builder, Map<String, String> config) {
    return builder.config(config).beans(ScriptedRelay.class).start();
  }

  @Test
  void every_batch_has_a_fencing_token_and_consecutive_claims_of_a_partition_have_increasing_tokens_across_nodes()
      throws Exception {
    Map<String, String> config = new LinkedHashMap<>();
    config.put("outbox.fenced.relay", "scripted");
    config.put("outbox.fenced.partitions", "2");
    config.put("outbox.fenced.batch-size", "5");
    config.put("outbox.fenced.poll-interval", "20ms");
    config.put("outbox.fenced.max-poll-interval", "100ms");
    ScriptedRelay.script((batch, node) -> {
      ScriptedRelay.sendAll(batch, node);
      Thread.sleep(3); // widen the window in which both nodes compete for a partition
    });
    try (OutboxTestContainer first = node(builder(), config);
        OutboxTestContainer second = node(builder().keepSchema(), config)) {
      List<Long> ids = new ArrayList<>();
      // At least 20 transactions, and on until both nodes have relayed batches (one node can win every claim for a
      // while on a busy machine): the tokens are only compared across nodes once both took part.
      for (int transaction = 0; transaction < 20
          || transaction < 400 && ScriptedRelay.seen().stream().map(Seen::node).distinct().count() < 2; transaction++) {
        OutboxTestContainer publisher = transaction % 2 == 0 ? first : second;
        Outbox outbox = publisher.select(Outbox.class);
        int base = transaction * 10;
        publisher.inTransaction(() -> {
          for (int i = 0; i < 10; i++) {
            ids.add(outbox.publish("fenced", Headered.key("group-" + (base + i) % 10)));
          }
        });
      }
      Eventually.until(WAIT, "all messages are relayed", () -> Rows.messages(database(), "fenced") == 0,
          () -> Rows.messages(database(), "fenced") + " left");

      Map<Integer, List<Seen>> byPartition = ScriptedRelay.seen().stream()
          .collect(Collectors.groupingBy(Seen::partition));
      SoftAssertions softly = new SoftAssertions();
      softly.assertThat(ScriptedRelay.seen().stream().map(Seen::node).distinct().count())
          .as("nodes that relayed batches").isEqualTo(2);
      byPartition.forEach((partition, batches) -> {
        List<Long> tokens = batches.stream().sorted(Comparator.comparingLong(Seen::startNanos))
            .map(Seen::fencingToken).toList();
        softly.assertThat(tokens).as("partition " + partition + ": tokens in claim order").allMatch(token -> token > 0);
        List<String> notIncreasing = new ArrayList<>();
        for (int i = 1; i < tokens.size(); i++) {
          if (tokens.get(i) <= tokens.get(i - 1)) {
            notIncreasing.add(tokens.get(i - 1) + " then " + tokens.get(i));
          }
        }
        softly.assertThat(notIncreasing).as("partition " + partition + ": consecutive claims (of " + tokens.size()
            + " batches) whose token did not increase").isEmpty();
      });
      softly.assertAll();
    }
  }

  @Test
  void a_relay_hanging_past_its_claim_ignoring_interrupts_is_told_the_claim_lapsed_and_only_a_newer_claim_relays_meanwhile()
      throws Exception {
    Map<String, String> config = new LinkedHashMap<>();
    config.put("outbox.fenced.relay", "scripted");
    config.put("outbox.fenced.relay-timeout", "1s");
    config.put("outbox.fenced.transaction-timeout", "4s");
    config.put("outbox.fenced.backoff.min", "100ms");
    config.put("outbox.fenced.backoff.max", "100ms");
    config.put("outbox.fenced.poll-interval", "50ms");
    config.put("outbox.fenced.max-poll-interval", "100ms");
    // Well past the transaction timeout, the longest any claim can last.
    Duration hang = Duration.ofSeconds(4 + 3);

    AtomicBoolean hungOnce = new AtomicBoolean();
    CountDownLatch hangStarted = new CountDownLatch(1);
    CountDownLatch hangEnded = new CountDownLatch(1);
    AtomicLong hangStart = new AtomicLong();
    AtomicLong hangEnd = new AtomicLong();
    AtomicReference<String> afterLapse = new AtomicReference<>();
    AtomicLong hungToken = new AtomicLong();
    ScriptedRelay.script((batch, node) -> {
      if (!hungOnce.compareAndSet(false, true)) {
        ScriptedRelay.sendAll(batch, node);
        return;
      }
      hangStart.set(System.nanoTime());
      hungToken.set(batch.fencingToken());
      hangStarted.countDown();
      long until = System.nanoTime() + hang.toNanos();
      int interrupts = 0;
      while (System.nanoTime() < until) {
        try {
          Thread.sleep(Math.max(1, TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime())));
        } catch (InterruptedException ignored) {
          interrupts++; // a relay stuck in a call that ignores interrupts
        }
      }
      afterLapse.set("claimHeld=" + batch.claimHeld() + " heldBack=" + batch.records().stream()
          .map(record -> String.valueOf(batch.heldBack(record))).distinct().sorted().toList()
          + " interrupts=" + interrupts);
      hangEnd.set(System.nanoTime());
      hangEnded.countDown();
    });
    try (OutboxTestContainer first = node(builder(), config);
        OutboxTestContainer second = node(builder().keepSchema(), config)) {
      List<Long> ids = first.inTransaction(() -> List.of(
          first.select(Outbox.class).publish("fenced", Headered.key("g")),
          first.select(Outbox.class).publish("fenced", Headered.key("g")),
          first.select(Outbox.class).publish("fenced", Headered.key("g"))));
      assertThat(hangStarted.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("a relay hangs").isTrue();
      assertThat(hangEnded.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the hang ends").isTrue();

      // Once the hung batch's claim has lapsed another node may take the partition over (that is what the lease
      // is for); what must never happen is a batch under the stale claim, or one of an older claim, meanwhile.
      List<Seen> overlapping = ScriptedRelay.seen().stream()
          .filter(seen -> seen.startNanos() > hangStart.get() && seen.startNanos() < hangEnd.get()).toList();
      SoftAssertions softly = new SoftAssertions();
      softly.assertThat(overlapping).as("batches handed to a relay while the first one hung, under a claim that is"
          + " not newer than the hung one (token " + hungToken.get() + ")")
          .allSatisfy(seen -> assertThat(seen.fencingToken()).isGreaterThan(hungToken.get()));
      softly.assertThat(afterLapse.get()).as("what the hanging relay was told once the claim lapsed")
          .startsWith("claimHeld=false heldBack=[true]");
      try {
        Eventually.until(WAIT, "the group is relayed afterwards", () -> Rows.messages(database(), "fenced") == 0,
            () -> Rows.messages(database(), "fenced") + " left");
        softly.assertThat(ScriptedRelay.deliveredIdsByGroup().get("g")).as("order of group g").isEqualTo(ids);
      } catch (AssertionError notRelayed) {
        softly.fail(notRelayed.getMessage());
      }
      softly.assertAll();
    }
  }
}
