package dev.outboxer.health;

import static dev.outboxer.health.HealthProbe.data;
import static dev.outboxer.health.HealthProbe.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.WorkerStatus;
import dev.outboxer.testing.LogCapture;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import io.smallrye.health.SmallRyeHealthReporter;
import jakarta.json.JsonObject;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Liveness {@code outbox-workers} against workers stopped on purpose, on PostgreSQL with the core's
 * real supervisor: a relay that hangs ignoring interrupts (the supervisor replaces its worker once
 * the run outlasts its transaction) and an executor that refuses the workers' runs (the supervisor
 * schedules them again once it accepts). Stall time 2 s; the outboxes' relay timeout 1 s and idle
 * poll 200 ms stay below it, as the settings check demands.
 *
 * <p>Each change of status is bounded from both sides where the timing allows: DOWN not before the
 * stall time has passed, and no later than the stall time plus the refresh interval (the backlog
 * read may be that old) plus {@link #SLACK}; UP again no later than the supervisor's reaction
 * (its 1 s round, and for a hanging run its stuck time) plus {@link #SLACK}. The slack covers
 * thread scheduling, the 50 ms polling here and a database round trip on a busy CI machine.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WorkerStallTest {

  private static final Duration STALL = Duration.ofSeconds(2);
  private static final Duration REFRESH = Duration.ofMillis(300);
  /** The core's supervisor round (Workers.SUPERVISION_INTERVAL): how often it checks the workers. */
  private static final Duration SUPERVISION = Duration.ofSeconds(1);
  /** The core replaces a worker whose run outlasts transaction-timeout (2 s) + relay-timeout (1 s) + 5 s. */
  private static final Duration STUCK_AFTER = Duration.ofSeconds(2 + 1 + 5);
  /** What the bounds allow beyond the configured times: scheduling, polling and a database read. */
  private static final Duration SLACK = Duration.ofSeconds(1);

  private OutboxTestContainer container;
  private HealthProbe probe;
  private Outbox outbox;
  private OutboxAdmin admin;
  private QuietLogs quiet;
  private LogCapture coreLog;

  @BeforeAll
  void start() {
    // The stalls are on purpose: the core's and the transaction manager's warnings about them are expected.
    quiet = QuietLogs.of("dev.outboxer.cdi.internal.work", "com.arjuna", "org.hibernate.resource.transaction");
    coreLog = LogCapture.of("dev.outboxer.cdi.internal.work");
    OutboxTestContainer.Builder builder = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
        .config("outbox.health.worker-stall", "2s")
        .config("outbox.health.refresh-interval", REFRESH.toMillis() + "ms")
        .beans(HangingRelay.class, RecordingRelay.class, PausableScheduler.class);
    for (String name : new String[] {"hang", "paused"}) {
      builder.config("outbox." + name + ".relay", name.equals("hang") ? "hanging" : "recording")
          .config("outbox." + name + ".relay-timeout", "1s")
          .config("outbox." + name + ".transaction-timeout", "2s")
          .config("outbox." + name + ".poll-interval", "100ms")
          .config("outbox." + name + ".max-poll-interval", "200ms");
    }
    container = builder.start();
    probe = new HealthProbe(container.select(SmallRyeHealthReporter.class));
    outbox = container.select(Outbox.class);
    admin = container.select(OutboxAdmin.class);
  }

  @AfterAll
  void stop() {
    PausableScheduler.resume();
    HangingRelay relay = container.select(HangingRelay.class);
    relay.release();
    await().atMost(Duration.ofSeconds(10)).until(relay::hungWorkerFinished);
    container.close();
    coreLog.close();
    quiet.close();
  }

  private JsonObject liveness() {
    return probe.liveness(OutboxWorkersCheck.NAME);
  }

  /**
   * Polls liveness every 50 ms until its status is {@code expected} and returns that answer; fails
   * if it is not so within {@code bound} of {@code sinceNanos} (a {@link System#nanoTime()} stamp).
   */
  private JsonObject livenessWithin(String expected, long sinceNanos, Duration bound, String what) {
    long remaining = sinceNanos + bound.toNanos() - System.nanoTime();
    JsonObject[] last = new JsonObject[1];
    await(what + " within " + bound.toMillis() + " ms").atMost(Duration.ofNanos(Math.max(remaining, 1_000_000)))
        .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(50))
        .until(() -> status(last[0] = liveness()).equals(expected));
    return last[0];
  }

  private long publish(String outboxName) throws Exception {
    return container.inTransaction(() -> outbox.publish(outboxName, new Ping("g", 1)));
  }

  private WorkerStatus worker(String outboxName) {
    return admin.workers().stream().filter(w -> w.outbox().equals(outboxName)).findFirst().orElseThrow();
  }

  @Test
  void a_worker_hanging_in_its_relay_is_down_after_the_stall_time_naming_its_partition_until_the_supervisor_replaced_it()
      throws Exception {
    HangingRelay relay = container.select(HangingRelay.class);
    CountDownLatch hanging = relay.hangNextBatch();
    // Taken before the publish: the worker's run starts after it, so the run is never older than
    // this (a stamp taken after the latch would be later than the run's start, by up to a scheduling delay).
    long hangStarted = System.nanoTime();
    long id = publish("hang");
    assertThat(hanging.await(10, TimeUnit.SECONDS)).as("the relay hangs").isTrue();
    // The run started before the latch was released: bounds counted from here are on the safe side.
    long hangSeen = System.nanoTime();

    JsonObject early = liveness();
    if (System.nanoTime() - hangStarted < STALL.toNanos()) {
      assertThat(status(early)).as("a batch shorter than the stall time is no stall: " + early).isEqualTo("UP");
    }
    JsonObject down = livenessWithin("DOWN", hangSeen, STALL.plus(REFRESH).plus(SLACK),
        "DOWN after the stall time (" + STALL.toMillis() + " ms) + refresh (" + REFRESH.toMillis() + " ms) + slack");
    assertThat(System.nanoTime() - hangStarted).as("DOWN not before the stall time").isGreaterThanOrEqualTo(STALL.toNanos());
    assertThat(data(down).getString("stalled")).isEqualTo("hang/0");
    assertThat(data(down).getString("hang.partition-0"))
        .startsWith("stalled: its current run started ").contains("while 1 message(s) wait");

    // The supervisor replaces the worker at its first round after the run outlasted STUCK_AFTER; the
    // new worker counts as active from its start, so UP needs no backlog read.
    livenessWithin("UP", hangSeen, STUCK_AFTER.plus(SUPERVISION).plus(SLACK),
        "UP again after the replacement: stuck time (" + STUCK_AFTER.toMillis() + " ms) + a supervisor round + slack");
    assertThat(coreLog.warnings()).as("UP again only once the supervisor replaced the worker")
        .anySatisfy(warning -> assertThat(warning).contains("Outbox 'hang', partition 0", "a new worker takes over"));
    await().atMost(Duration.ofSeconds(10)).until(() -> relay.delivered().stream().anyMatch(r -> r.id() == id));
    JsonObject recovered = liveness();
    assertThat(status(recovered)).isEqualTo("UP");
    assertThat(data(recovered).containsKey("hang.partition-0")).isFalse();
  }

  @Test
  void a_worker_whose_runs_are_refused_is_down_only_while_messages_wait_and_up_again_once_rescheduled()
      throws Exception {
    RecordingRelay relay = container.select(RecordingRelay.class);
    PausableScheduler.pause();
    try {
      await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
          .until(() -> !worker("paused").running()
              && worker("paused").sinceLastActivity().compareTo(STALL.plusMillis(500)) > 0);
      JsonObject idle = liveness();
      assertThat(status(idle)).as("a stopped worker with nothing waiting: " + idle).isEqualTo("UP");

      long id = publish("paused");
      long published = System.nanoTime();
      // The worker is past its stall time already: only the backlog read (at most REFRESH old) lags behind.
      JsonObject down = livenessWithin("DOWN", published, REFRESH.plus(SLACK),
          "DOWN once a message waits for a worker stopped longer than the stall time: refresh ("
              + REFRESH.toMillis() + " ms) + slack");
      assertThat(data(down).getString("stalled")).isEqualTo("paused/0");
      assertThat(data(down).getString("paused.partition-0"))
          .startsWith("stalled: its last run ended ").contains("while 1 message(s) wait");
      assertThat(relay.handed()).extracting(r -> r.id()).doesNotContain(id);

      PausableScheduler.resume();
      long resumed = System.nanoTime();
      // The supervisor's next round schedules the worker at once; its run makes it active again.
      livenessWithin("UP", resumed, SUPERVISION.plus(SLACK),
          "UP again once the executor accepts runs: a supervisor round (" + SUPERVISION.toMillis() + " ms) + slack");
      assertThat(coreLog.warnings()).as("the supervisor noticed the broken schedule")
          .anySatisfy(warning -> assertThat(warning).contains("Outbox 'paused', partition 0", "refused"));
      await().atMost(Duration.ofSeconds(10)).until(() -> relay.confirmed().stream().anyMatch(r -> r.id() == id));
      assertThat(status(liveness())).isEqualTo("UP");
    } finally {
      PausableScheduler.resume();
    }
  }
}
