package dev.outboxer.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.spi.OutboxRecord;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * What {@link OutboxerExtension} promises, proven on one database per subclass: each subclass
 * registers the extension in a static field (one Outboxer for the class) with {@link #outboxes}.
 * The outbox {@code shipments} retries after an hour, and polls every 30 seconds: a test that sees
 * a retry within seconds proves the clock step and the wake-up.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class OutboxerExtensionContractTest {

  /** The configuration every subclass gives its extension. */
  static final Map<String, String> OUTBOXES = Map.of(
      "outbox.shipments.relay", "recording",
      "outbox.shipments.backoff.min", "1h",
      "outbox.shipments.backoff.max", "2h",
      "outbox.shipments.poll-interval", "30s",
      "outbox.shipments.max-poll-interval", "30s",
      "outbox.shipments.relay-timeout", "1s");

  static OutboxerExtension.Builder outboxes(OutboxerExtension.Builder builder) {
    return builder.config(OUTBOXES).beans(ShipmentService.class);
  }

  private static final Duration WAIT = Duration.ofSeconds(10);

  /** The business table the tests write next to the messages; created by the tests, dropped by none. */
  static final String BUSINESS_TABLE = "testkit_shipment";

  abstract OutboxerExtension extension();

  @Inject Outbox injectedOutbox;
  @Inject RecordingRelay injectedRelay;
  @Inject SettableClock injectedClock;

  @BeforeEach
  void businessTable(DataSource dataSource) throws Exception {
    try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
      statement.execute("CREATE TABLE IF NOT EXISTS " + BUSINESS_TABLE + " (order_id BIGINT NOT NULL PRIMARY KEY)");
      statement.execute("DELETE FROM " + BUSINESS_TABLE);
    }
  }

  @Test
  @Order(1)
  void a_test_gets_outboxers_parts_as_parameters_and_fields(Outbox outbox, OutboxAdmin admin, RecordingRelay relay,
      SettableClock clock, DataSource dataSource, OutboxerExtension self) {
    assertThat(self).isSameAs(extension());
    assertThat(outbox).isNotNull();
    assertThat(admin.started()).isTrue();
    assertThat(relay).isSameAs(extension().relay());
    assertThat(clock).isSameAs(extension().clock());
    assertThat(dataSource).isSameAs(extension().dataSource());
    assertThat(injectedOutbox).isNotNull();
    assertThat(injectedRelay).isSameAs(relay);
    assertThat(injectedClock).isSameAs(clock);
    assertThat(extension().outboxes()).containsExactly("shipments");
  }

  @Test
  @Order(2)
  void a_committed_message_is_relayed_with_the_business_row_of_its_transaction(Outbox outbox, RecordingRelay relay)
      throws Exception {
    long id = extension().inTransaction(() -> {
      insertBusinessRow(1);
      return outbox.publish(new Shipped(1, "post"));
    });

    OutboxRecord relayed = relay.awaitConfirmations(1).get(0);
    assertThat(relayed.id()).isEqualTo(id);
    assertThat(relayed.outbox()).isEqualTo("shipments");
    assertThat(relayed.payloadText()).contains("\"carrier\":\"post\"");
    assertThat(businessRows()).isEqualTo(1);
  }

  @Test
  @Order(3)
  void a_rolled_back_transaction_leaves_neither_the_message_nor_the_business_row(Outbox outbox, OutboxAdmin admin) {
    assertThatThrownBy(() -> extension().inTransaction(() -> {
      insertBusinessRow(2);
      outbox.publish(new Shipped(2, "post"));
      throw new IllegalStateException("out of stock");
    })).hasMessage("out of stock");

    assertThat(admin.counts("shipments").pending()).isZero();
    assertThat(businessRows()).isZero();
  }

  @Test
  @Order(4)
  void the_test_beans_publish_in_the_callers_transaction() throws Exception {
    ShipmentService service = extension().select(ShipmentService.class);
    long id = extension().inTransaction(() -> service.ship(3));

    assertThat(extension().relay().awaitConfirmations(1)).extracting(OutboxRecord::id).containsExactly(id);
  }

  @Test
  @Order(5)
  void failed_records_are_retried_once_the_clock_passes_their_retry_time(Outbox outbox, RecordingRelay relay)
      throws Exception {
    relay.failNext(2);
    long first = extension().inTransaction(() -> outbox.publish(new Shipped(5, "post")));
    long second = extension().inTransaction(() -> outbox.publish(new Shipped(5, "post")));
    relay.awaitHanded(1);
    Thread.sleep(500);
    assertThat(relay.confirmed()).as("no retry before the backoff of an hour").isEmpty();

    extension().advanceClock(Duration.ofHours(3));    // the first retry is due; it fails again (2nd of 2)
    await().atMost(WAIT).until(() -> relay.handed().stream().filter(record -> record.id() == first).count() == 2);
    assertThat(relay.confirmed()).isEmpty();
    extension().advanceClock(Duration.ofHours(3));

    assertThat(relay.awaitConfirmations(2)).extracting(OutboxRecord::id).containsExactly(first, second);
  }

  @Test
  @Order(6)
  void a_failing_group_holds_back_only_itself_until_it_recovers(Outbox outbox, RecordingRelay relay) throws Exception {
    relay.failGroup("order:6");
    long blocked = extension().inTransaction(() -> outbox.publish(new Shipped(6, "post")));
    long other = extension().inTransaction(() -> outbox.publish(new Shipped(7, "post")));

    assertThat(relay.awaitConfirmations(1)).extracting(OutboxRecord::id).containsExactly(other);
    assertThat(relay.handed()).extracting(OutboxRecord::id).contains(blocked);

    relay.recoverGroup("order:6");
    extension().advanceClock(Duration.ofHours(3));
    assertThat(relay.awaitConfirmations(2)).extracting(OutboxRecord::id).containsExactly(other, blocked);
  }

  @Test
  @Order(7)
  void a_hanging_batch_is_interrupted_by_the_relay_timeout_and_retried(Outbox outbox, RecordingRelay relay)
      throws Exception {
    CountDownLatch hanging = relay.hangOnNextBatch();
    long id = extension().inTransaction(() -> outbox.publish(new Shipped(8, "post")));
    assertThat(hanging.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(relay.confirmed()).isEmpty();

    // The worker gives up on the batch after relay-timeout (1 s) and schedules a retry an hour later.
    Thread.sleep(2000);
    extension().advanceClock(Duration.ofHours(3));
    assertThat(relay.awaitConfirmations(1)).extracting(OutboxRecord::id).containsExactly(id);
  }

  @Test
  @Order(8)
  void outboxer_reads_time_from_the_settable_clock(Outbox outbox, SettableClock clock, RecordingRelay relay)
      throws Exception {
    Instant frozen = clock.freeze().plus(Duration.ofDays(1));
    clock.advance(Duration.ofDays(1));
    extension().inTransaction(() -> outbox.publish(new Shipped(9, "post")));

    assertThat(relay.awaitConfirmations(1).get(0).createdAt()).isEqualTo(frozen.truncatedTo(ChronoUnit.MICROS));
  }

  /** Leaves a message failing for the next test, which must not see it. */
  @Test
  @Order(9)
  void a_test_may_leave_failing_messages_and_commands_behind(Outbox outbox, OutboxAdmin admin, RecordingRelay relay)
      throws Exception {
    relay.failGroup("order:10");
    relay.failNext(5);
    extension().inTransaction(() -> outbox.publish(new Shipped(10, "post")));
    relay.awaitHanded(1);
    assertThat(admin.counts("shipments").pending()).isEqualTo(1);
  }

  @Test
  @Order(10)
  void the_next_test_of_the_class_starts_with_an_empty_outbox_and_a_fresh_relay(Outbox outbox, OutboxAdmin admin,
      RecordingRelay relay, SettableClock clock) throws Exception {
    assertThat(admin.counts("shipments").pending()).isZero();
    assertThat(relay.handed()).isEmpty();
    Instant earlier = clock.instant();
    Thread.sleep(20);
    assertThat(clock.instant()).as("unfrozen: the clock ticks again").isAfter(earlier);

    long id = extension().inTransaction(() -> outbox.publish(new Shipped(10, "post")));
    assertThat(relay.awaitConfirmations(1)).extracting(OutboxRecord::id).containsExactly(id);
  }

  private void insertBusinessRow(long orderId) throws Exception {
    try (Connection connection = extension().dataSource().getConnection();
        PreparedStatement insert = connection.prepareStatement("INSERT INTO " + BUSINESS_TABLE + " VALUES (?)")) {
      insert.setLong(1, orderId);
      insert.executeUpdate();
    }
  }

  private long businessRows() {
    try (Connection connection = extension().dataSource().getConnection();
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM " + BUSINESS_TABLE)) {
      rows.next();
      return rows.getLong(1);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
