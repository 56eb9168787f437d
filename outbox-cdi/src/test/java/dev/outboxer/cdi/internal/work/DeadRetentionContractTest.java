package dev.outboxer.cdi.internal.work;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Outbox;
import dev.outboxer.cdi.internal.DeadMessages;
import dev.outboxer.cdi.internal.Eventually;
import dev.outboxer.cdi.internal.Keyed;
import dev.outboxer.cdi.internal.LogCapture;
import dev.outboxer.cdi.internal.Rows;
import dev.outboxer.cdi.internal.ScriptedFailures;
import dev.outboxer.cdi.internal.ScriptedRelay;
import dev.outboxer.cdi.internal.store.DeadMessageStatements;
import dev.outboxer.testing.OutboxMetricsProbe;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Issue 30, item 5: {@code dead-retention} removes the dead messages that died longer ago than the
 * retention and nothing else, a chunk of {@code admin-chunk-size} a transaction while publishing and
 * draining go on, one node at a time (the retention lock), on the {@code retention-interval}
 * schedule measured on Outboxer's clock; a group with a dead message in it keeps its order.
 *
 * <p>Outbox {@code aged} keeps dead messages 7 days, runs only when a test calls it (its interval,
 * 365 days, never comes round while a test steps the clock by days); {@code scheduled} keeps them
 * 1 day and runs every hour of the clock; {@code forever} has no retention. The scripted relay fails
 * the records a test names: a {@link NoSuchElementException} is permanent ({@code dead-on}), any
 * other failure is retried after 100 days.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class DeadRetentionContractTest {

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final int CHUNK = 1_000;
  private static final DateTimeFormatter SQL_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSSSSS");
  private static final Logger RETENTION_LOG = Logger.getLogger(DeadMessageRetention.class.getName());

  OutboxTestContainer container;
  private Outbox outbox;
  DeadMessageRetention retention;
  private OutboxMetricsProbe metrics;
  private LogCapture logs;
  private final ScriptedFailures failures = new ScriptedFailures();

  abstract TestDatabase database();

  /** The expression that draws the next message id. */
  abstract String nextIdSql();

  @BeforeAll
  void start() {
    ScriptedRelay.reset();
    container = OutboxTestContainer.builder(database())
        .config(outbox("aged"))
        .config("outbox.aged.dead-retention", "7d")
        .config("outbox.aged.retention-interval", "365d")
        .config("outbox.aged.admin-chunk-size", String.valueOf(CHUNK))
        .config(outbox("scheduled"))
        .config("outbox.scheduled.dead-retention", "1d")
        .config("outbox.scheduled.retention-interval", "1h")
        .config(outbox("forever"))
        .beans(ScriptedRelay.class, OutboxMetricsProbe.class)
        .start();
    outbox = container.select(Outbox.class);
    retention = container.select(DeadMessageRetention.class);
    metrics = container.select(OutboxMetricsProbe.class);
    // The tests' logging shows warnings only: the run's INFO line is what some tests read.
    RETENTION_LOG.setLevel(Level.INFO);
  }

  private static Map<String, String> outbox(String name) {
    return Map.of("outbox." + name + ".relay", "scripted", "outbox." + name + ".dead-on",
        "java.util.NoSuchElementException", "outbox." + name + ".backoff.min", "100d", "outbox." + name
        + ".backoff.max", "100d", "outbox." + name + ".poll-interval", "50ms", "outbox." + name + ".max-poll-interval",
        "100ms");
  }

  @AfterAll
  void stop() {
    RETENTION_LOG.setLevel(null);
    ScriptedRelay.reset();
    if (container != null) {
      container.close();
    }
  }

  @BeforeEach
  void clean() {
    Rows.clear(database());
    logs = failures.begin(LogCapture.of(DeadMessageRetention.class.getName()));
  }

  @AfterEach
  void quiet() {
    failures.end(database());
  }

  @Test
  void only_dead_messages_that_died_longer_ago_than_the_retention_are_removed() throws Exception {
    Instant now = container.clock().instant();
    Instant longAgo = now.minus(Duration.ofDays(30));
    long deadOld;
    long deadOldUngrouped;
    long deadYoungCreatedLongAgo;
    long pending;
    long retrying;
    long delayed;
    long deadOldElsewhere;
    try (Connection connection = database().connect()) {
      connection.setAutoCommit(false);
      deadOld = insert(connection, "aged", "g1", "DEAD", 3, null, longAgo, now.minus(Duration.ofDays(8)));
      deadOldUngrouped = insert(connection, "aged", null, "DEAD", 1, null, longAgo, now.minus(Duration.ofDays(20)));
      deadYoungCreatedLongAgo = insert(connection, "aged", "g2", "DEAD", 5, null, longAgo,
          now.minus(Duration.ofDays(6)));
      pending = insert(connection, "aged", "g3", "PENDING", 0, null, longAgo, null);
      retrying = insert(connection, "aged", "g4", "PENDING", 4, now.plus(Duration.ofDays(1)), longAgo,
          now.minus(Duration.ofDays(20)));
      delayed = insert(connection, "aged", "g5", "PENDING", 0, now.plus(Duration.ofDays(30)), longAgo, null);
      deadOldElsewhere = insert(connection, "forever", "g1", "DEAD", 1, null, longAgo, now.minus(Duration.ofDays(300)));
      // Before the commit: no worker can read them earlier. A failure that is not permanent: retried in 100 days.
      for (long id : List.of(pending, retrying, delayed)) {
        failures.fail(id, new IllegalStateException("the partner is down"));
      }
      connection.commit();
    }
    Eventually.until(WAIT, "the fresh message failed once", () -> Rows.attempts(database(), pending) == 1,
        () -> String.valueOf(Rows.message(database(), pending)));

    DeadMessageRetention.Run run = retention.run("aged");

    assertThat(run.removed()).as("removed").isEqualTo(2);
    assertThat(run.lockedOut()).isFalse();
    assertThat(Rows.status(database(), deadOld)).as("dead 8 days").isNull();
    assertThat(Rows.status(database(), deadOldUngrouped)).as("dead 20 days, ungrouped").isNull();
    assertThat(Rows.status(database(), deadYoungCreatedLongAgo)).as("dead 6 days, created 30 days ago")
        .isEqualTo("DEAD");
    assertThat(Rows.status(database(), pending)).as("pending").isEqualTo("PENDING");
    assertThat(Rows.status(database(), retrying)).as("waiting for its retry").isEqualTo("PENDING");
    assertThat(Rows.status(database(), delayed)).as("delayed").isEqualTo("PENDING");
    assertThat(Rows.status(database(), deadOldElsewhere)).as("dead in an outbox without retention").isEqualTo("DEAD");
    assertThat(retention.run("forever").removed()).as("removed in an outbox without retention").isZero();
    assertThat(logs.messages(Level.INFO)).as(logs.dump()).singleElement().asString()
        .startsWith("Outbox 'aged': outbox.aged.dead-retention=7d removed 2 dead message(s) that died before "
            + utc(now.minus(Duration.ofDays(7))).substring(0, 10));

    // Two days on, on Outboxer's clock: the message dead for 6 days has been dead for 8.
    container.clock().advance(Duration.ofDays(2));
    assertThat(retention.run("aged").removed()).as("removed two days later").isEqualTo(1);
    assertThat(Rows.status(database(), deadYoungCreatedLongAgo)).isNull();
    assertThat(Rows.messages(database(), "aged")).as("messages left").isEqualTo(3);
  }

  @Test
  void a_group_with_a_dead_message_in_it_keeps_its_order_and_loses_nothing() throws Exception {
    List<Long> first = container.inTransaction(() -> {
      List<Long> ids = new ArrayList<>();
      for (int i = 1; i <= 4; i++) {
        long id = outbox.publish("aged", new Keyed("g", i));
        if (i == 2) {
          failures.fail(id, new NoSuchElementException("no such customer"));
        }
        ids.add(id);
      }
      return ids;
    });
    long dead = first.get(1);
    Eventually.until(WAIT, "message 2 died and 1, 3, 4 were relayed", () -> "DEAD".equals(Rows.status(database(), dead))
        && ScriptedRelay.deliveryCounts().keySet().containsAll(List.of(first.get(0), first.get(2), first.get(3))),
        () -> ScriptedRelay.deliveredIdsByGroup().toString());
    container.clock().advance(Duration.ofDays(8));

    List<Long> later = new CopyOnWriteArrayList<>();
    DeadMessageRetention.Run run = runWhilePublishing(sequence -> new Keyed("g", 5 + sequence), 5, later,
        new ArrayList<>()).run();

    assertThat(run.removed()).isEqualTo(1);
    assertThat(Rows.status(database(), dead)).isNull();
    List<Long> expected = new ArrayList<>(List.of(first.get(0), first.get(2), first.get(3)));
    expected.addAll(later);
    Eventually.until(WAIT, "everything but the dead message relayed",
        () -> Rows.messages(database(), "aged") == 0, () -> ScriptedRelay.deliveredIdsByGroup().toString());
    assertThat(ScriptedRelay.deliveredIdsByGroup().get("g")).as("group g's deliveries, in order").isEqualTo(expected);
  }

  @Test
  void a_node_removes_nothing_while_another_node_holds_the_retention_lock() throws Exception {
    List<Long> dead = deadLongAgo("aged", 3);
    DeadMessageStatements statements = container.select(DeadMessageStatements.class);
    try (Connection otherNode = database().connect()) {
      otherNode.setAutoCommit(false);
      assertThat(statements.tryRetentionLock(otherNode, "aged")).as("the other node takes the lock").isTrue();
      try {
        DeadMessageRetention.Run run = retention.run("aged");
        assertThat(run.removed()).as("removed while the other node held the lock").isZero();
        assertThat(run.lockedOut()).isTrue();
        assertThat(Rows.messages(database(), "aged")).isEqualTo(dead.size());
        assertThat(statements.tryRetentionLock(otherNode, "scheduled")).as("another outbox's lock is its own")
            .isTrue();
        statements.releaseRetentionLock(otherNode, "scheduled");
      } finally {
        statements.releaseRetentionLock(otherNode, "aged");
        otherNode.rollback();
      }
    }
    DeadMessageRetention.Run run = retention.run("aged");
    assertThat(run.removed()).as("removed once the lock is free").isEqualTo(dead.size());
    assertThat(run.lockedOut()).isFalse();
  }

  /**
   * Last: the second node's shutdown removes the outbox's metrics from the registry the JVM shares,
   * which the counter of the large purge reads.
   */
  @Test
  @Order(Integer.MAX_VALUE)
  void two_nodes_running_retention_at_once_remove_every_message_once() throws Exception {
    OutboxTestContainer secondNode = OutboxTestContainer.builder(database()).keepSchema()
        .config(outbox("aged")).config("outbox.aged.dead-retention", "7d")
        .config("outbox.aged.retention-interval", "365d").config("outbox.aged.admin-chunk-size", String.valueOf(CHUNK))
        .config(outbox("scheduled")).config(outbox("forever"))
        .beans(ScriptedRelay.class)
        .start();
    try {
      // After the second node's first run, which comes at its start.
      Thread.sleep(1_500);
      try (Connection connection = database().connect()) {
        DeadMessages.insert(database(), connection, "aged", 10 * CHUNK, 100);
      }
      DeadMessageRetention other = secondNode.select(DeadMessageRetention.class);
      List<DeadMessageRetention.Run> runs = new CopyOnWriteArrayList<>();
      Thread second = new Thread(() -> runs.add(other.run("aged")), "second-node");
      second.start();
      runs.add(retention.run("aged"));
      second.join(60_000);

      assertThat(runs).hasSize(2);
      assertThat(runs.stream().mapToInt(DeadMessageRetention.Run::removed).sum()).as("removed by both: " + runs)
          .isEqualTo(10 * CHUNK);
      assertThat(Rows.messages(database(), "aged")).isZero();
    } finally {
      secondNode.close();
    }
  }

  @Test
  void a_large_purge_commits_a_chunk_a_transaction_while_publishing_and_draining_go_on() throws Exception {
    int dead = 20 * CHUNK;
    long before = metrics.count("outbox.retention.removed", "aged");
    try (Connection connection = database().connect()) {
      // Created on 2026-01-01 without a last attempt: dead since then.
      DeadMessages.insert(database(), connection, "aged", dead, 100);
    }
    List<Long> published = new CopyOnWriteArrayList<>();
    List<Long> publishedNanos = new CopyOnWriteArrayList<>();
    WhilePublishing whilePublishing = runWhilePublishing(sequence -> new Keyed("live" + sequence % 7, sequence), 0,
        published, publishedNanos);
    DeadMessageRetention.Run run = whilePublishing.run();
    long started = whilePublishing.startedNanos();
    long ended = whilePublishing.endedNanos();

    assertThat(run.removed()).as("removed").isEqualTo(dead);
    assertThat(run.chunks()).as("chunks, one transaction each").isEqualTo(dead / CHUNK);
    assertThat(publishedNanos).as("publishes committed while retention ran")
        .anyMatch(nanos -> nanos > started && nanos < ended);
    assertThat(ScriptedRelay.deliveries()).as("messages relayed while retention ran")
        .anyMatch(delivery -> delivery.nanos() > started && delivery.nanos() < ended);
    assertThat(logs.messages(Level.INFO)).as("one line per run").hasSize(1).allMatch(line -> line.contains(
        "removed " + dead + " dead message(s)") && line.contains("in " + dead / CHUNK + " chunk(s)"));
    assertThat(metrics.count("outbox.retention.removed", "aged") - before).as("counted").isEqualTo(dead);
    Eventually.until(WAIT, "the published messages relayed", () -> Rows.messages(database(), "aged") == 0,
        () -> Rows.messages(database(), "aged") + " left");
    Set<Long> delivered = ScriptedRelay.deliveries().stream().map(d -> d.record().id()).collect(Collectors.toSet());
    assertThat(delivered).as("every published message relayed").containsAll(published);
  }

  @Test
  void retention_runs_on_its_interval_measured_on_outboxers_clock() throws Exception {
    // The first run came at start; any run a clock step of another test made due comes within a second.
    Thread.sleep(1_500);
    List<Long> dead = deadLongAgo("scheduled", 5);
    Thread.sleep(1_500);
    assertThat(Rows.messages(database(), "scheduled")).as("before the interval passed").isEqualTo(dead.size());
    container.clock().advance(Duration.ofHours(1));
    Eventually.until(WAIT, "the scheduled run removed the dead messages",
        () -> Rows.messages(database(), "scheduled") == 0, logs::dump);
    // The run logs after its last chunk committed: the rows can be gone a moment before the line is written.
    Eventually.until(WAIT, "the scheduled run logged what it removed", () -> logs.messages(Level.INFO).stream()
        .anyMatch(line -> line.startsWith("Outbox 'scheduled':")
            && line.contains("removed " + dead.size() + " dead message(s)")), logs::dump);
  }

  /**
   * A clock that was ahead and is set right again (a wrong NTP source, a VM's clock after a pause)
   * must not leave retention waiting until the clock catches up with the run it made at the wrong
   * time: that would be a year here.
   */
  @Test
  void a_clock_set_back_does_not_stop_retention_until_it_catches_up_again() throws Exception {
    List<Long> first = deadLongAgo("scheduled", 2);
    container.clock().advance(Duration.ofDays(365));
    Eventually.until(WAIT, "the run the clock ahead made due removed the dead messages",
        () -> Rows.messages(database(), "scheduled") == 0, logs::dump);
    container.clock().advance(Duration.ofDays(-365));
    List<Long> second = deadLongAgo("scheduled", 3);
    container.clock().advance(Duration.ofHours(1));
    Eventually.until(Duration.ofSeconds(10), "the run an interval after the clock was set back removed "
        + second.size() + " dead messages (besides " + first.size() + " removed before)",
        () -> Rows.messages(database(), "scheduled") == 0, logs::dump);
  }

  /** A run of outbox {@code aged}'s retention, and when it started and ended. */
  private record WhilePublishing(DeadMessageRetention.Run run, long startedNanos, long endedNanos) {}

  /**
   * Runs outbox {@code aged}'s retention while a thread of its own publishes to it, one message a
   * transaction, from a little before the run until it ended, and at least {@code atLeast} messages.
   *
   * @param ids where the ids go, in publish order
   * @param committedNanos when each publish committed
   */
  private WhilePublishing runWhilePublishing(IntFunction<Keyed> message, int atLeast, List<Long> ids,
      List<Long> committedNanos) throws InterruptedException {
    AtomicBoolean publishing = new AtomicBoolean(true);
    Thread publisher = new Thread(() -> {
      for (int sequence = 0; publishing.get() || sequence < atLeast; sequence++) {
        Keyed next = message.apply(sequence);
        try {
          ids.add(container.inTransaction(() -> outbox.publish("aged", next)));
          committedNanos.add(System.nanoTime());
        } catch (Exception e) {
          throw new AssertionError("publish during retention failed", e);
        }
      }
    }, "publisher");
    publisher.start();
    Thread.sleep(100);
    long started = System.nanoTime();
    try {
      DeadMessageRetention.Run run = retention.run("aged");
      return new WhilePublishing(run, started, System.nanoTime());
    } finally {
      publishing.set(false);
      publisher.join(10_000);
    }
  }

  /** Dead messages of the outbox that died 300 days ago. */
  List<Long> deadLongAgo(String outboxName, int count) throws SQLException {
    Instant longAgo = container.clock().instant().minus(Duration.ofDays(300));
    List<Long> ids = new ArrayList<>();
    try (Connection connection = database().connect()) {
      for (int i = 0; i < count; i++) {
        ids.add(insert(connection, outboxName, "g" + i, "DEAD", 1, null, longAgo, longAgo));
      }
    }
    return ids;
  }

  /** A message row written as a worker would have left it; times are UTC, null for none. */
  private long insert(Connection connection, String outboxName, String group, String status, int attempts,
      Instant nextAttemptAt, Instant createdAt, Instant lastAttemptAt) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement("INSERT INTO outbox_message (id, outbox,"
        + " partition_no, partition_key, group_key, message_type, content_type, payload, status, attempts,"
        + " next_attempt_at, created_at, last_attempt_at, last_error) VALUES (" + nextIdSql() + ", ?, 0, 0, ?,"
        + " 'dev.outboxer.cdi.internal.Keyed', 'application/json', ?, ?, ?, " + time(nextAttemptAt) + ", "
        + time(createdAt) + ", " + time(lastAttemptAt) + ", ?) RETURNING id")) {
      statement.setString(1, outboxName);
      statement.setString(2, group);
      statement.setBytes(3, "{}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
      statement.setString(4, status);
      statement.setInt(5, attempts);
      statement.setString(6, "DEAD".equals(status) ? "refused" : null);
      try (ResultSet rows = statement.executeQuery()) {
        rows.next();
        return rows.getLong(1);
      }
    }
  }

  private static String time(Instant instant) {
    return instant == null ? "NULL" : "TIMESTAMP '" + utc(instant) + "'";
  }

  private static String utc(Instant instant) {
    return LocalDateTime.ofInstant(instant, ZoneOffset.UTC).format(SQL_TIME);
  }
}
