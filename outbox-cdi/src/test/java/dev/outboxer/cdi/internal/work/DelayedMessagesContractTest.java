package dev.outboxer.cdi.internal.work;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outboxer.InvalidOutboxMessageException;
import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.cdi.internal.Delayed;
import dev.outboxer.cdi.internal.Keyed;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Delayed messages ({@link dev.outboxer.OutboxMessage#notBefore()}), per database: not relayed
 * before their time, relayed when it comes; a delayed message holds back the later messages of its
 * own group and nothing else (every later message in total ordering); a time now or past means at
 * once; a time beyond {@code max-delay} is refused naming {@code notBefore}, nothing written; a
 * delayed message counts no age before its time; more due messages than a batch go in batches, in
 * group order.
 *
 * <p>Time is the container's settable clock, frozen in each test: "not before its time" is proven
 * by a later message of the same single partition that the same read relayed, or by a quiet poll.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class DelayedMessagesContractTest {

  private static final Duration WAIT = Duration.ofSeconds(15);
  private static final Duration DELAY = Duration.ofMinutes(10);

  private OutboxTestContainer container;
  private Outbox outbox;
  private OutboxAdmin admin;
  private RecordingRelay relay;
  private Workers workers;

  abstract TestDatabase database();

  @BeforeAll
  void start() {
    Map<String, String> config = new LinkedHashMap<>();
    outboxConfig(config, "timed", "group", "50");
    outboxConfig(config, "totals", "total", "50");
    outboxConfig(config, "small", "group", "5");
    outboxConfig(config, "capped", "group", "50");
    config.put("outbox.capped.max-delay", "1h");
    container = OutboxTestContainer.builder(database()).config(config).beans(RecordingRelay.class).start();
    outbox = container.select(Outbox.class);
    admin = container.select(OutboxAdmin.class);
    relay = container.select(RecordingRelay.class);
    workers = container.select(Workers.class);
  }

  private static void outboxConfig(Map<String, String> config, String name, String ordering, String batchSize) {
    config.put("outbox." + name + ".relay", "recording");
    config.put("outbox." + name + ".ordering", ordering);
    config.put("outbox." + name + ".batch-size", batchSize);
    config.put("outbox." + name + ".poll-interval", "50ms");
    config.put("outbox." + name + ".max-poll-interval", "200ms");
  }

  @AfterAll
  void stop() {
    if (container != null) {
      container.close();
    }
  }

  @BeforeEach
  void freezeTime() {
    relay.reset();
    container.clock().freeze();
  }

  @AfterEach
  void unfreezeTime() {
    container.clock().unfreeze();
  }

  @Test
  void a_delayed_message_is_not_relayed_before_its_time_and_is_relayed_when_it_comes() throws Exception {
    Instant time = container.clock().instant().plus(DELAY);
    long delayed = publish("timed", new Delayed(null, 1, time));
    long marker = publish("timed", new Keyed(null, 2));

    awaitConfirmed(marker);
    assertThat(handedIds()).as("the read that relayed the later message left the delayed one waiting")
        .doesNotContain(delayed);

    container.clock().advance(DELAY.minusSeconds(1));
    long secondMarker = publish("timed", new Keyed(null, 3));
    awaitConfirmed(secondMarker);
    assertThat(handedIds()).as("a second before its time").doesNotContain(delayed);

    container.clock().advance(Duration.ofSeconds(1));
    workers.wakeAll("timed");
    awaitConfirmed(delayed);
    OutboxRecord record = relay.confirmed().stream().filter(r -> r.id() == delayed).findFirst().orElseThrow();
    assertThat(record.attempts()).as("no failure charged for its wait").isZero();
  }

  @Test
  void a_delayed_message_holds_back_the_later_messages_of_its_group_and_nothing_else() throws Exception {
    Instant time = container.clock().instant().plus(DELAY);
    long first = publish("timed", new Delayed("order-1", 1, time));
    long second = publish("timed", new Keyed("order-1", 2));
    long other = publish("timed", new Keyed("order-2", 1));
    long ungrouped = publish("timed", new Keyed(null, 9));

    awaitConfirmed(other);
    awaitConfirmed(ungrouped);
    long marker = publish("timed", new Keyed("order-3", 1));
    awaitConfirmed(marker);
    assertThat(handedIds()).as("the delayed message and the later message of its group wait")
        .doesNotContain(first, second);

    container.clock().advance(DELAY);
    workers.wakeAll("timed");
    awaitConfirmed(second);
    assertThat(relay.confirmedIdsByGroup().get("order-1")).as("the group's order").containsExactly(first, second);
  }

  @Test
  void in_total_ordering_a_delayed_message_holds_back_every_later_message() throws Exception {
    Instant time = container.clock().instant().plus(DELAY);
    long delayed = publish("totals", new Delayed(null, 1, time));
    long later = publish("totals", new Keyed("any", 2));

    workers.wakeAll("totals");
    await().during(Duration.ofMillis(600)).atMost(WAIT).until(() -> relay.handed().isEmpty());

    container.clock().advance(DELAY);
    workers.wakeAll("totals");
    awaitConfirmed(later);
    assertThat(relay.confirmed()).extracting(OutboxRecord::id).containsExactly(delayed, later);
  }

  @Test
  void a_time_now_or_in_the_past_means_at_once_and_keeps_the_group_order() throws Exception {
    Instant now = container.clock().instant();
    long past = publish("timed", new Delayed("order-7", 1, now.minus(Duration.ofDays(2))));
    long present = publish("timed", new Delayed("order-7", 2, now));
    long next = publish("timed", new Keyed("order-7", 3));

    awaitConfirmed(next);
    assertThat(relay.confirmedIdsByGroup().get("order-7")).containsExactly(past, present, next);
    assertThat(relay.confirmed()).allSatisfy(record -> assertThat(record.attempts()).isZero());
  }

  @Test
  void a_time_beyond_max_delay_is_refused_naming_notBefore_and_the_transaction_goes_on() throws Exception {
    Instant tooLate = container.clock().instant().plus(Duration.ofHours(1)).plusSeconds(1);
    long written = container.inTransaction(() -> {
      assertThatThrownBy(() -> outbox.publish("capped", new Delayed("order-8", 1, tooLate)))
          .isInstanceOfSatisfying(InvalidOutboxMessageException.class,
              e -> assertThat(e.field()).isEqualTo("notBefore"))
          .hasMessageContaining("outbox.capped.max-delay")
          .hasMessageContaining("1h")
          .hasMessageContaining("Nothing was written");
      return outbox.publish("capped", new Delayed("order-8", 2, container.clock().instant().plus(Duration.ofHours(1))));
    });
    assertThat(container.tables().messages("capped")).extracting(row -> row.id()).containsExactly(written);
  }

  @Test
  void a_delayed_message_is_pending_but_neither_late_nor_retrying_before_its_time() throws Exception {
    Instant time = container.clock().instant().plus(DELAY);
    long id = publish("timed", new Delayed("order-9", 1, time));
    container.clock().advance(Duration.ofMinutes(5));

    assertThat(admin.counts("timed").pending()).isEqualTo(1);
    assertThat(admin.counts("timed").retrying()).isZero();
    assertThat(admin.partitions("timed").get(0).retrying()).as("the partition's retrying count").isZero();
    assertThat(admin.counts("timed").oldestPendingAge()).as("waiting for its time is not lag").isZero();
    assertThat(admin.blockedGroups("timed", 10)).singleElement().satisfies(blocked -> {
      assertThat(blocked.messageId()).isEqualTo(id);
      assertThat(blocked.groupKey()).isEqualTo("order-9");
      assertThat(blocked.attempts()).isZero();
      assertThat(blocked.nextAttemptAt()).isEqualTo(time.truncatedTo(java.time.temporal.ChronoUnit.MICROS));
      assertThat(blocked.lastError()).isNull();
    });

    container.clock().advance(Duration.ofMinutes(7));
    assertThat(admin.counts("timed").oldestPendingAge()).as("two minutes past its time, if still pending")
        .isBetween(Duration.ZERO, Duration.ofMinutes(2));
    workers.wakeAll("timed");
    await().atMost(WAIT).until(() -> admin.counts("timed").pending() == 0);
  }

  @Test
  void more_due_messages_than_a_batch_go_in_batches_in_group_order() throws Exception {
    Instant time = container.clock().instant().plus(DELAY);
    List<Long> published = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      published.add(publish("small", new Delayed("group-" + (i % 3), i, time)));
    }
    for (int i = 12; i < 18; i++) {
      published.add(publish("small", new Keyed("group-" + (i % 3), i)));
    }
    workers.wakeAll("small");
    await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> relay.handed().isEmpty());

    container.clock().advance(DELAY);
    workers.wakeAll("small");
    assertThat(relay.awaitConfirmed(18, WAIT)).as("all 18 relayed").isTrue();
    for (int group = 0; group < 3; group++) {
      List<Long> expected = new ArrayList<>();
      for (int i = group; i < 18; i += 3) {
        expected.add(published.get(i));
      }
      assertThat(relay.confirmedIdsByGroup().get("group-" + group)).as("group-" + group).isEqualTo(expected);
    }
    await().atMost(WAIT).until(() -> container.tables().messages("small").isEmpty());
  }

  private long publish(String outboxName, dev.outboxer.OutboxMessage message) throws Exception {
    return container.inTransaction(() -> outbox.publish(outboxName, message));
  }

  private void awaitConfirmed(long id) {
    await().atMost(WAIT).until(() -> relay.confirmed().stream().anyMatch(record -> record.id() == id));
  }

  private List<Long> handedIds() {
    return relay.handed().stream().map(OutboxRecord::id).toList();
  }
}
