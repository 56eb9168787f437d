package dev.outboxer.cdi.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Outbox;
import dev.outboxer.cdi.internal.Eventually;
import dev.outboxer.cdi.internal.Headered;
import dev.outboxer.cdi.internal.Rows;
import dev.outboxer.cdi.internal.ScriptedRelay;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Regression tests of issue 11 ("What happens today" 7; "Deliver" 5): group keys compare as exact
 * text on every database. MariaDB's PAD SPACE collations make {@code 'a '} equal {@code 'a'}, so
 * today a failing {@code "a "} holds back the unrelated group {@code "a"}; a case-insensitive
 * collation would merge {@code "A"} and {@code "a"}. One partition, so that both groups meet in
 * the ordering check; the failing message is published and fails first, so that the check runs in
 * the database (within one batch the worker compares keys in Java).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class GroupKeyExactnessContractTest {

  private static final Duration WAIT = Duration.ofSeconds(15);

  private OutboxTestContainer container;
  private Outbox outbox;
  private final AtomicReference<String> failingKey = new AtomicReference<>();

  abstract TestDatabase database();

  @BeforeAll
  void start() {
    ScriptedRelay.reset();
    container = OutboxTestContainer.builder(database())
        .config("outbox.exact.relay", "scripted")
        .config("outbox.exact.partitions", "1")
        .config("outbox.exact.max-attempts", "infinity")
        .config("outbox.exact.backoff.min", "1m")
        .config("outbox.exact.backoff.max", "1m")
        .config("outbox.exact.poll-interval", "100ms")
        .config("outbox.exact.max-poll-interval", "200ms")
        .beans(ScriptedRelay.class)
        .start();
    outbox = container.select(Outbox.class);
  }

  @AfterAll
  void stop() {
    ScriptedRelay.reset();
    if (container != null) {
      container.close();
    }
  }

  @BeforeEach
  void clean() {
    ScriptedRelay.reset();
    Rows.clear(database());
    ScriptedRelay.script((batch, node) -> {
      for (OutboxRecord record : batch.records()) {
        if (batch.heldBack(record)) {
          continue;
        }
        if (record.groupKey() != null && record.groupKey().equals(failingKey.get())) {
          batch.fail(record, new IllegalStateException("the destination refuses group '" + record.groupKey() + "'"));
        } else {
          ScriptedRelay.send(batch, record, node);
        }
      }
    });
  }

  @AfterEach
  void quiet() {
    ScriptedRelay.reset();
    Rows.clear(database());
  }

  @Test
  void a_failing_group_with_a_trailing_space_does_not_hold_back_the_group_without_it() throws Exception {
    assertDistinctGroups("a ", "a");
  }

  @Test
  void a_failing_group_in_upper_case_does_not_hold_back_the_group_in_lower_case() throws Exception {
    assertDistinctGroups("A", "a");
  }

  private void assertDistinctGroups(String failing, String other) throws Exception {
    failingKey.set(failing);
    long blocked = container.inTransaction(() -> outbox.publish("exact", Headered.key(failing)));
    Eventually.until(WAIT, "the message of group '" + failing + "' failed once",
        () -> Rows.attempts(database(), blocked) == 1, () -> "row " + Rows.message(database(), blocked));

    long free = container.inTransaction(() -> outbox.publish("exact", Headered.key(other)));
    Eventually.until(WAIT, "the message of group '" + other + "' is relayed although group '" + failing + "' waits",
        () -> Rows.message(database(), free) == null,
        () -> "row " + Rows.message(database(), free) + ", sends " + ScriptedRelay.deliveries());
    assertThat(ScriptedRelay.deliveries()).singleElement()
        .satisfies(delivery -> assertThat(delivery.record().groupKey()).isEqualTo(other));
    assertThat(Rows.message(database(), blocked).get("group_key")).as("the stored key").isEqualTo(failing);
  }
}
