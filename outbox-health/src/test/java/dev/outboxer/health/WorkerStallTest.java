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
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class WorkerStallTest {

  private static final Duration STALL = Duration.ofSeconds(2);

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
        .config("outbox.health.refresh-interval", "300ms")
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

    JsonObject early = liveness();
    if (System.nanoTime() - hangStarted < STALL.toNanos()) {
      assertThat(status(early)).as("a batch shorter than the stall time is no stall: " + early).isEqualTo("UP");
    }
    await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
        .until(() -> status(liveness()).equals("DOWN"));
    assertThat(System.nanoTime() - hangStarted).isGreaterThanOrEqualTo(STALL.toNanos());
    JsonObject down = liveness();
    assertThat(data(down).getString("stalled")).isEqualTo("hang/0");
    assertThat(data(down).getString("hang.partition-0"))
        .startsWith("stalled: its current run started ").contains("while 1 message(s) wait");

    // The supervisor replaces the worker once its run outlasts transaction-timeout + relay-timeout + 5 s.
    await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
        .until(() -> status(liveness()).equals("UP"));
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
      await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
          .until(() -> status(liveness()).equals("DOWN"));
      JsonObject down = liveness();
      assertThat(data(down).getString("stalled")).isEqualTo("paused/0");
      assertThat(data(down).getString("paused.partition-0"))
          .startsWith("stalled: its last run ended ").contains("while 1 message(s) wait");
      assertThat(relay.handed()).extracting(r -> r.id()).doesNotContain(id);

      PausableScheduler.resume();
      await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
          .until(() -> status(liveness()).equals("UP"));
      assertThat(coreLog.warnings()).as("the supervisor noticed the broken schedule")
          .anySatisfy(warning -> assertThat(warning).contains("Outbox 'paused', partition 0", "refused"));
      await().atMost(Duration.ofSeconds(10)).until(() -> relay.confirmed().stream().anyMatch(r -> r.id() == id));
      assertThat(status(liveness())).isEqualTo("UP");
    } finally {
      PausableScheduler.resume();
    }
  }
}
