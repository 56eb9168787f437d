package dev.outboxer.cdi.internal.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.UnknownOutboxException;
import dev.outboxer.cdi.internal.Eventually;
import dev.outboxer.cdi.internal.Headered;
import dev.outboxer.cdi.internal.Rows;
import dev.outboxer.cdi.internal.ScriptedRelay;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import java.time.Duration;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The admin rows of the bad-input table (issue 11): ids that are not there, not dead or of another
 * outbox, limits out of range, and id lists longer than a statement can bind. Each call either does
 * what its Javadoc says or is refused with a clear exception; none removes or revives anything it
 * should not.
 *
 * <p>The relay fails every record: in outbox {@code dying} (max-attempts 1) a message is dead
 * after its first attempt; in {@code orders} it stays pending, waiting a minute for its retry.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AdminBadInputContractTest {

  private static final Duration WAIT = Duration.ofSeconds(15);
  /** More ids than PostgreSQL's and MariaDB's 65,535 bind parameters of one statement. */
  private static final int MANY = 70_000;

  private OutboxTestContainer container;
  private Outbox outbox;
  private OutboxAdmin admin;

  abstract TestDatabase database();

  @BeforeAll
  void start() {
    ScriptedRelay.reset();
    container = OutboxTestContainer.builder(database())
        .config("outbox.orders.relay", "scripted")
        .config("outbox.orders.backoff.min", "1m")
        .config("outbox.orders.backoff.max", "1m")
        .config("outbox.orders.poll-interval", "100ms")
        .config("outbox.dying.relay", "scripted")
        .config("outbox.dying.max-attempts", "1")
        .config("outbox.dying.poll-interval", "100ms")
        .beans(ScriptedRelay.class)
        .start();
    outbox = container.select(Outbox.class);
    admin = container.select(OutboxAdmin.class);
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
    ScriptedRelay.script((batch, node) -> batch.records().forEach(
        record -> batch.fail(record, new IllegalStateException("refused by the test"))));
    Rows.clear(database());
  }

  @AfterEach
  void quiet() {
    ScriptedRelay.reset();
    Rows.clear(database());
  }

  @Test
  void discard_of_an_id_that_never_existed_returns_false_and_removes_nothing() throws Exception {
    long pending = pending();
    assertThat(admin.discard("orders", pending + 1_000_000)).isFalse();
    assertThat(admin.discard("orders", -1)).isFalse();
    assertThat(Rows.message(database(), pending)).isNotNull();
  }

  @Test
  void discard_of_a_message_of_another_outbox_returns_false_and_leaves_it() throws Exception {
    long dead = dead();
    assertThat(admin.discard("orders", dead)).isFalse();
    assertThat(Rows.message(database(), dead)).isNotNull();
  }

  @Test
  void retry_dead_of_pending_unknown_and_foreign_ids_revives_nothing_and_changes_nothing() throws Exception {
    long pending = pending();
    long dead = dead();
    assertThat(admin.retryDead("orders", pending, dead, pending + 1_000_000)).isZero();
    assertThat(Rows.status(database(), dead)).isEqualTo("DEAD");
    assertThat(Rows.attempts(database(), pending)).isEqualTo(1);
  }

  @Test
  void discard_all_of_more_ids_than_a_statement_can_bind_removes_exactly_the_ones_there() throws Exception {
    long pending = pending();
    long[] ids = LongStream.concat(LongStream.of(pending), LongStream.rangeClosed(1, MANY).map(i -> -i)).toArray();
    assertThat(admin.discardAll("orders", ids)).isEqualTo(1);
    assertThat(Rows.message(database(), pending)).isNull();
  }

  @Test
  void retry_dead_of_more_ids_than_a_statement_can_bind_revives_exactly_the_dead_ones() throws Exception {
    long dead = dead();
    long[] ids = LongStream.concat(LongStream.of(dead), LongStream.rangeClosed(1, MANY).map(i -> -i)).toArray();
    assertThat(admin.retryDead("dying", ids)).isEqualTo(1);
    assertThat(Rows.message(database(), dead)).as("the old id is gone: revived under a new one").isNull();
  }

  @ParameterizedTest(name = "limit {0}")
  @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
  void a_limit_below_1_is_refused_naming_the_limit(int limit) {
    assertThatThrownBy(() -> admin.dead("dying", limit)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("limit must be at least 1, was " + limit);
    assertThatThrownBy(() -> admin.blockedGroups("orders", limit)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("limit must be at least 1");
  }

  @Test
  void the_largest_limit_and_a_negative_after_id_list_what_there_is() throws Exception {
    long dead = dead();
    assertThat(admin.dead("dying", null, Long.MIN_VALUE, Integer.MAX_VALUE)).extracting(m -> m.id())
        .containsExactly(dead);
    assertThat(admin.blockedGroups("orders", Integer.MAX_VALUE)).isEmpty();
  }

  @Test
  void a_null_group_key_for_the_group_operations_is_refused_naming_it() {
    assertThatThrownBy(() -> admin.discardDeadGroup("dying", null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("groupKey");
    assertThatThrownBy(() -> admin.retryDeadGroup("dying", null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("groupKey");
  }

  @Test
  void an_unknown_outbox_is_refused_by_every_operation() throws Exception {
    long id = pending();
    // Every OutboxAdmin method that takes an outbox name (outboxes(), started() and workers() take none).
    java.util.Map<String, org.assertj.core.api.ThrowableAssert.ThrowingCallable> operations =
        new java.util.LinkedHashMap<>();
    operations.put("counts", () -> admin.counts("nope"));
    operations.put("partitions", () -> admin.partitions("nope"));
    operations.put("blockedGroups", () -> admin.blockedGroups("nope", 10));
    operations.put("discard", () -> admin.discard("nope", id));
    operations.put("discardAll", () -> admin.discardAll("nope", id));
    operations.put("discardDeadGroup", () -> admin.discardDeadGroup("nope", "p"));
    operations.put("retryDead", () -> admin.retryDead("nope", id));
    operations.put("retryDeadGroup", () -> admin.retryDeadGroup("nope", "p"));
    operations.put("dead(outbox, limit)", () -> admin.dead("nope", 10));
    operations.put("dead(outbox, groupKey, afterId, limit)", () -> admin.dead("nope", "p", 0, 10));
    org.assertj.core.api.SoftAssertions softly = new org.assertj.core.api.SoftAssertions();
    operations.forEach((name, operation) -> softly.assertThatThrownBy(operation).as(name)
        .isInstanceOf(UnknownOutboxException.class).hasMessageContaining("'nope'"));
    softly.assertThat(Rows.message(database(), id)).as("the message of another outbox").isNotNull();
    softly.assertAll();
  }

  /** A message of outbox orders that failed once and waits a minute for its retry. */
  private long pending() throws Exception {
    long id = container.inTransaction(() -> outbox.publish("orders", Headered.key("p")));
    Eventually.until(WAIT, "the message failed once", () -> Rows.attempts(database(), id) == 1,
        () -> "row " + Rows.message(database(), id));
    return id;
  }

  /** A dead message of outbox dying. */
  private long dead() throws Exception {
    long id = container.inTransaction(() -> outbox.publish("dying", Headered.key("d")));
    Eventually.until(WAIT, "the message is dead", () -> "DEAD".equals(Rows.status(database(), id)),
        () -> "row " + Rows.message(database(), id));
    return id;
  }
}
