package dev.outboxer.cdi.internal.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.OutboxException;
import dev.outboxer.cdi.internal.DeadMessages;
import dev.outboxer.cdi.internal.Keyed;
import dev.outboxer.cdi.internal.Rows;
import dev.outboxer.cdi.internal.ScriptedRelay;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The operators' bulk calls on many dead messages, on a real database, with {@code
 * admin-chunk-size=1000} and the calling thread's JTA transaction timeout at 1 s: a call outside a
 * transaction works a chunk per transaction of its own, each well inside the timeout (the whole call
 * in one transaction does not fit in it), and every chunk is committed before the next begins, so
 * the workers relay revived messages and publishers publish while the call runs, and a call stopped
 * midway leaves whole chunks done and the rest as it was, to be finished by calling again. In the
 * caller's transaction the call is the caller's: one transaction, all or nothing.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AdminAtScaleContractTest {

  static final String OUTBOX = "scale";
  static final int DEAD = 20_000;
  static final int CHUNK = 1_000;
  private static final Logger ADMIN_LOG = Logger.getLogger(OutboxAdminBean.class.getName());

  private OutboxTestContainer container;
  private OutboxAdmin admin;
  private Outbox outbox;
  private final List<String> changes = new CopyOnWriteArrayList<>();
  private final List<Long> changeMillis = new CopyOnWriteArrayList<>();
  private volatile Consumer<String> onChange = line -> {};
  private final Handler changeLog = new Handler() {
    @Override
    public void publish(LogRecord record) {
      String line = record.getMessage();
      if (line != null && (line.contains(" revived ") || line.contains(" discarded "))) {
        changes.add(line);
        changeMillis.add(record.getMillis());
        onChange.accept(line);
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };

  abstract TestDatabase database();

  @BeforeAll
  void start() {
    ScriptedRelay.reset();
    container = OutboxTestContainer.builder(database())
        .config("outbox." + OUTBOX + ".relay", "scripted")
        .config("outbox." + OUTBOX + ".admin-chunk-size", String.valueOf(CHUNK))
        .config("outbox." + OUTBOX + ".poll-interval", "50ms")
        .config("outbox." + OUTBOX + ".max-poll-interval", "100ms")
        .beans(ScriptedRelay.class)
        .start();
    admin = container.select(OutboxAdmin.class);
    outbox = container.select(Outbox.class);
    // The tests' logging shows warnings only: the chunks' INFO lines are what this test counts.
    ADMIN_LOG.setLevel(Level.INFO);
    ADMIN_LOG.addHandler(changeLog);
  }

  @AfterAll
  void stop() {
    ADMIN_LOG.removeHandler(changeLog);
    ADMIN_LOG.setLevel(null);
    ScriptedRelay.reset();
    if (container != null) {
      container.close();
    }
  }

  @BeforeEach
  void shortTransactions() throws Exception {
    Rows.clear(database());
    ScriptedRelay.reset();
    changes.clear();
    changeMillis.clear();
    onChange = line -> {};
    // Narayana's timeout is the thread's: it applies to the transactions the admin call begins on this thread.
    container.transactionManager().setTransactionTimeout(1);
  }

  @AfterEach
  void clean() throws Exception {
    container.transactionManager().setTransactionTimeout(0);
    onChange = line -> {};
    Rows.clear(database());
  }

  @Test
  void retry_of_all_dead_messages_commits_a_chunk_a_transaction_while_publishing_and_draining_go_on() throws Exception {
    long first = deadMessages(DEAD, 100);
    AtomicBoolean publishing = new AtomicBoolean(true);
    List<Long> publishedNanos = new CopyOnWriteArrayList<>();
    Thread publisher = new Thread(() -> {
      for (int i = 0; publishing.get(); i++) {
        int sequence = i;
        try {
          container.inTransaction(() -> outbox.publish(OUTBOX, new Keyed("live", sequence)));
          publishedNanos.add(System.nanoTime());
        } catch (Exception e) {
          throw new AssertionError("publish during the revive failed", e);
        }
      }
    }, "publisher");
    long started = System.nanoTime();
    publisher.start();
    int revived;
    try {
      revived = admin.retryDead(OUTBOX);
    } finally {
      publishing.set(false);
      publisher.join(10_000);
    }
    long ended = System.nanoTime();

    assertThat(revived).as("messages revived").isEqualTo(DEAD);
    assertThat(admin.counts(OUTBOX).dead()).as("dead messages left").isZero();
    assertChunks("revived", DEAD / CHUNK);
    assertThat(publishedNanos).as("publishes committed while the revive ran")
        .anyMatch(nanos -> nanos > started && nanos < ended);
    assertThat(ScriptedRelay.deliveries()).as("messages relayed while the revive ran")
        .anyMatch(delivery -> delivery.nanos() < ended);
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
        assertThat(Rows.messages(database(), OUTBOX)).as("messages left after the drain: "
            + Rows.query(database(), "SELECT id, group_key, status, attempts, next_attempt_at FROM outbox_message"
            + " ORDER BY id LIMIT 5") + "; workers " + admin.workers()).isZero());
    // Above the first dead id: a batch of the test before may still have been relaying when this one began.
    assertThat(ScriptedRelay.deliveries().stream().map(d -> d.record().id()).filter(id -> id > first).distinct()
        .count()).as("distinct messages relayed").isEqualTo(DEAD + publishedNanos.size());
  }

  @Test
  void retry_of_dead_messages_by_id_commits_a_chunk_a_transaction() throws Exception {
    long first = deadMessages(DEAD, 100);
    long[] ids = LongStream.range(first, first + DEAD).toArray();
    assertThat(admin.retryDead(OUTBOX, ids)).as("messages revived").isEqualTo(DEAD);
    assertThat(admin.counts(OUTBOX).dead()).as("dead messages left").isZero();
    assertChunks("revived", DEAD / CHUNK);
  }

  @Test
  void retry_of_one_groups_dead_messages_commits_a_chunk_a_transaction() throws Exception {
    deadMessages(DEAD, 1);
    assertThat(admin.retryDeadGroup(OUTBOX, "g0")).as("messages revived").isEqualTo(DEAD);
    assertThat(admin.counts(OUTBOX).dead()).as("dead messages left").isZero();
    assertChunks("revived", DEAD / CHUNK);
  }

  @Test
  void discard_of_one_groups_dead_messages_commits_a_chunk_a_transaction() throws Exception {
    deadMessages(DEAD, 1);
    assertThat(admin.discardDeadGroup(OUTBOX, "g0")).as("messages discarded").isEqualTo(DEAD);
    assertThat(Rows.messages(database(), OUTBOX)).as("messages left").isZero();
    assertChunks("discarded", DEAD / CHUNK);
  }

  @Test
  void discard_of_dead_messages_by_id_commits_a_chunk_a_transaction() throws Exception {
    long first = deadMessages(DEAD, 100);
    long[] ids = LongStream.range(first, first + DEAD).toArray();
    assertThat(admin.discardAll(OUTBOX, ids)).as("messages discarded").isEqualTo(DEAD);
    assertThat(Rows.messages(database(), OUTBOX)).as("messages left").isZero();
    assertChunks("discarded", DEAD / CHUNK);
  }

  @Test
  void a_retry_stopped_midway_leaves_whole_chunks_revived_and_the_rest_dead_and_finishes_when_called_again()
      throws Exception {
    deadMessages(DEAD, 100);
    Thread caller = Thread.currentThread();
    onChange = line -> {
      if (changes.size() == 5) {
        caller.interrupt();
      }
    };
    Throwable stopped = catchThrowable(() -> admin.retryDead(OUTBOX));
    boolean wasInterrupted = Thread.interrupted();
    onChange = line -> {};

    assertThat(stopped).as("retryDead interrupted after its fifth chunk").isInstanceOf(OutboxException.class)
        .hasMessageContaining("interrupted").hasMessageContaining(5 * CHUNK + " message(s)")
        .hasMessageContaining("call it again");
    assertThat(wasInterrupted).as("the caller's interrupt is kept").isTrue();
    assertThat(admin.counts(OUTBOX).dead()).as("dead messages left").isEqualTo(DEAD - 5 * CHUNK);
    assertThat(admin.retryDead(OUTBOX)).as("revived by the second call").isEqualTo(DEAD - 5 * CHUNK);
    assertThat(admin.counts(OUTBOX).dead()).as("dead messages left").isZero();
  }

  @Test
  void in_the_callers_transaction_a_retry_is_the_callers_all_or_nothing() throws Exception {
    container.transactionManager().setTransactionTimeout(0);
    deadMessages(3 * CHUNK, 100);
    container.transactionManager().begin();
    try {
      assertThat(admin.retryDead(OUTBOX)).as("revived in the caller's transaction").isEqualTo(3 * CHUNK);
    } finally {
      container.transactionManager().rollback();
    }
    assertThat(admin.counts(OUTBOX).dead()).as("dead messages after the caller rolled back").isEqualTo(3 * CHUNK);
  }

  private void assertChunks(String change, int chunks) {
    assertThat(changes).as("log lines of the chunks, logged at " + changeMillis).hasSize(chunks)
        .allMatch(line -> line.contains(change + " " + CHUNK + " "), "each a chunk of " + CHUNK);
  }

  /** @return the first id; the others follow it */
  private long deadMessages(int count, int groups) throws Exception {
    try (Connection connection = database().connect()) {
      return DeadMessages.insert(database(), connection, OUTBOX, count, groups);
    }
  }
}
