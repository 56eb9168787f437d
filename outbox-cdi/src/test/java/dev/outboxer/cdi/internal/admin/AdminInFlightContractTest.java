package dev.outboxer.cdi.internal.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.cdi.internal.Eventually;
import dev.outboxer.cdi.internal.Headered;
import dev.outboxer.cdi.internal.Rows;
import dev.outboxer.cdi.internal.ScriptedRelay;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.testing.OutboxMetricsProbe;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Regression tests of issue 11 ("What happens today" 3; "Deliver" 3): {@code discard} never races
 * a batch in flight. The relay holds a batch on a latch while another thread discards one of its
 * messages: discard returns only once the batch's transaction ended, and then tells the truth
 * ({@code false} if the batch delivered the message, {@code true} if it failed and is now gone for
 * good), and {@code outbox.relayed} counts the rows the worker really deleted.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AdminInFlightContractTest {

  private static final Duration WAIT = Duration.ofSeconds(15);
  /** How long discard is given to (wrongly) return while the batch is still held. */
  private static final long HELD_MILLIS = 1000;

  private OutboxTestContainer container;
  private Outbox outbox;
  private OutboxAdmin admin;
  private OutboxMetricsProbe metrics;
  private final ExecutorService threads = Executors.newCachedThreadPool();
  private CountDownLatch holding;
  private CountDownLatch release;

  abstract TestDatabase database();

  @BeforeAll
  void start() {
    ScriptedRelay.reset();
    container = OutboxTestContainer.builder(database())
        .config("outbox.orders.relay", "scripted")
        .config("outbox.orders.partitions", "1")
        .config("outbox.orders.backoff.min", "1m")
        .config("outbox.orders.backoff.max", "1m")
        .config("outbox.orders.poll-interval", "100ms")
        .config("outbox.orders.max-poll-interval", "200ms")
        .beans(ScriptedRelay.class, OutboxMetricsProbe.class)
        .start();
    outbox = container.select(Outbox.class);
    admin = container.select(OutboxAdmin.class);
    metrics = container.select(OutboxMetricsProbe.class);
  }

  @AfterAll
  void stop() {
    threads.shutdownNow();
    ScriptedRelay.reset();
    if (container != null) {
      container.close();
    }
  }

  @BeforeEach
  void clean() {
    ScriptedRelay.reset();
    Rows.clear(database());
    holding = new CountDownLatch(1);
    release = new CountDownLatch(1);
  }

  @AfterEach
  void quiet() {
    release.countDown();
    ScriptedRelay.reset();
    Rows.clear(database());
  }

  @Test
  void discarding_a_message_the_held_batch_delivered_waits_for_the_batch_and_returns_false() throws Exception {
    AtomicLong target = new AtomicLong();
    // Sends both records, then holds the batch before its transaction can commit.
    ScriptedRelay.script((batch, node) -> {
      ScriptedRelay.sendAll(batch, node);
      holding.countDown();
      release.await(WAIT.toSeconds(), TimeUnit.SECONDS);
    });
    List<Long> ids = publishTwo();
    target.set(ids.get(0));
    assertThat(holding.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the relay holds the batch").isTrue();
    long relayedBefore = metrics.count("outbox.relayed", "orders");

    CompletableFuture<Boolean> discard = CompletableFuture.supplyAsync(() -> admin.discard("orders", target.get()), threads);
    String early = returnedWhileHeld(discard);
    release.countDown();
    boolean discarded = discard.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    Eventually.until(WAIT, "the batch committed", () -> ids.stream().allMatch(id -> Rows.message(database(), id) == null),
        () -> "rows " + ids.stream().map(id -> Rows.message(database(), id)).toList());
    long relayed = metrics.count("outbox.relayed", "orders") - relayedBefore;

    SoftAssertions softly = new SoftAssertions();
    softly.assertThat(early).as("discard must wait for the batch in flight").isNull();
    softly.assertThat(discarded).as("discard of a message the batch delivered").isFalse();
    softly.assertThat(relayed).as("outbox.relayed, which counts the rows the worker deleted: 2 unless discard took one")
        .isEqualTo(discarded ? 1 : 2);
    softly.assertAll();
  }

  @Test
  void discarding_a_message_the_held_batch_fails_waits_for_the_batch_removes_it_and_it_is_never_relayed()
      throws Exception {
    AtomicLong target = new AtomicLong();
    // Sends the first record, holds the batch, then fails the second.
    ScriptedRelay.script((batch, node) -> {
      for (OutboxRecord record : batch.records()) {
        if (record.id() != target.get()) {
          ScriptedRelay.send(batch, record, node);
        }
      }
      holding.countDown();
      release.await(WAIT.toSeconds(), TimeUnit.SECONDS);
      batch.records().stream().filter(record -> record.id() == target.get())
          .forEach(record -> batch.fail(record, new IllegalStateException("the destination is full")));
    });
    List<Long> ids = container.inTransaction(() -> {
      long first = outbox.publish("orders", Headered.key("a"));
      long second = outbox.publish("orders", Headered.key("b"));
      target.set(second);
      return List.of(first, second);
    });
    assertThat(holding.await(WAIT.toSeconds(), TimeUnit.SECONDS)).as("the relay holds the batch").isTrue();
    long relayedBefore = metrics.count("outbox.relayed", "orders");

    CompletableFuture<Boolean> discard = CompletableFuture.supplyAsync(() -> admin.discard("orders", target.get()), threads);
    String early = returnedWhileHeld(discard);
    release.countDown();
    boolean discarded = discard.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    Eventually.until(WAIT, "the batch committed", () -> Rows.message(database(), ids.get(0)) == null,
        () -> "rows " + ids.stream().map(id -> Rows.message(database(), id)).toList());

    // Past its retry time the discarded message must not come back.
    ScriptedRelay.script(ScriptedRelay::sendAll);
    container.clock().advance(Duration.ofMinutes(2));
    Thread.sleep(1000);
    SoftAssertions softly = new SoftAssertions();
    softly.assertThat(early).as("discard must wait for the batch in flight").isNull();
    softly.assertThat(discarded).as("discard of a message the batch failed").isTrue();
    softly.assertThat(Rows.message(database(), target.get())).as("the discarded row").isNull();
    softly.assertThat(ScriptedRelay.timesHanded(target.get())).as("times the discarded message was handed to the relay")
        .isEqualTo(1);
    softly.assertThat(metrics.count("outbox.relayed", "orders") - relayedBefore).as("outbox.relayed").isEqualTo(1);
    softly.assertAll();
  }

  private List<Long> publishTwo() throws Exception {
    return container.inTransaction(() -> List.of(outbox.publish("orders", Headered.key("a")),
        outbox.publish("orders", Headered.key("b"))));
  }

  /** Null if discard is still waiting after a while, else what it returned (or threw) meanwhile. */
  private static String returnedWhileHeld(CompletableFuture<Boolean> discard) {
    try {
      return "discard returned " + discard.get(HELD_MILLIS, TimeUnit.MILLISECONDS) + " while the batch was in flight";
    } catch (TimeoutException stillWaiting) {
      return null;
    } catch (Exception failed) {
      return "discard threw " + failed.getCause() + " while the batch was in flight";
    }
  }
}
