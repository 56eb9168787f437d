package dev.outboxer.cdi.internal.work;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.cdi.internal.Keyed;
import dev.outboxer.cdi.internal.jdbc.DataSourceLookup;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.jboss.weld.proxy.WeldClientProxy;
import org.junit.jupiter.api.Test;

/**
 * A message published on a node without workers reaches the worker of another node at once through
 * PostgreSQL's LISTEN/NOTIFY, not at that worker's next poll; with {@code outbox.wake-up=poll} it
 * waits for the poll.
 */
class CrossNodeWakeUpTest {

  /** Long enough that a relay within {@link #WOKEN_WITHIN} can only come from a wake-up. */
  private static final String IDLE_POLL = "20s";
  private static final Duration WOKEN_WITHIN = Duration.ofSeconds(3);

  @Test
  void a_publish_on_a_node_without_workers_wakes_the_worker_of_another_node() throws Exception {
    try (OutboxTestContainer workerNode = node("executor", "notify", true);
        OutboxTestContainer publishNode = node("none", "notify", false)) {
      RecordingRelay relay = workerNode.select(RecordingRelay.class);
      Outbox outbox = publishNode.select(Outbox.class);
      awaitFirstIdlePoll(workerNode);

      long[] millis = new long[10];
      for (int i = 0; i < millis.length; i++) {
        int expected = i + 1;
        long start = System.nanoTime();
        publishNode.inTransaction(() -> outbox.publish("orders", new Keyed("group-" + expected % 3, expected)));
        await().atMost(WOKEN_WITHIN).pollInterval(Duration.ofMillis(1))
            .until(() -> relay.confirmed().size() == expected);
        millis[i] = (System.nanoTime() - start) / 1_000_000;
      }
      Arrays.sort(millis);
      assertThat(millis[millis.length - 1]).as("every publish relayed by the other node long before its poll (ms: "
          + Arrays.toString(millis) + ")").isLessThan(WOKEN_WITHIN.toMillis());
    }
  }

  @Test
  void with_wake_up_poll_the_other_node_finds_the_message_only_at_its_poll() throws Exception {
    try (OutboxTestContainer workerNode = node("executor", "poll", true);
        OutboxTestContainer publishNode = node("none", "poll", false)) {
      RecordingRelay relay = workerNode.select(RecordingRelay.class);
      Outbox outbox = publishNode.select(Outbox.class);
      awaitFirstIdlePoll(workerNode);

      publishNode.inTransaction(() -> outbox.publish("orders", new Keyed("g", 1)));
      Thread.sleep(WOKEN_WITHIN.toMillis());
      assertThat(relay.confirmed()).as("no wake-up: the worker sleeps until its next poll").isEmpty();
    }
  }

  /**
   * A node publishing one message per transaction sent one notification (a database transaction of
   * its own) per publish. Now notifications are at least the send interval apart, the first of a
   * burst goes out at once, and the last publish of a burst is still named in one. The sends are
   * recorded on a stand-in data source, so that the database's speed does not decide how many
   * publishes each one covers.
   */
  @Test
  void publishes_in_quick_succession_share_notifications_and_the_last_one_is_still_sent() throws Exception {
    try (OutboxTestContainer publishNode = node("none", "notify", true)) {
      CrossNodeWakeUp wakeUp = (CrossNodeWakeUp) ((WeldClientProxy) publishNode.select(CrossNodeWakeUp.class)).getMetadata()
          .getContextualInstance();
      RecordingNotifications sent = new RecordingNotifications();
      wakeUp.dataSources = sent;

      // A quiet spell, then 200 publishes to partition 0, one every half millisecond, then one to partition 1.
      long firstPublish = System.nanoTime();
      wakeUp.published("orders", 0);
      for (int i = 0; i < 200; i++) {
        LockSupport.parkNanos(500_000);
        wakeUp.published("orders", 0);
      }
      wakeUp.published("orders", 1);
      await().atMost(WOKEN_WITHIN).until(() -> sent.payloads().stream().anyMatch(p -> p.matches(".* (.*,)?1")));

      List<Long> times = sent.times();
      assertThat(times.get(0) - firstPublish).as("the first publish after a quiet spell is sent at once")
          .isLessThan(Duration.ofMillis(500).toNanos());
      List<Long> gaps = new ArrayList<>();
      for (int i = 1; i < times.size(); i++) {
        gaps.add((times.get(i) - times.get(i - 1)) / 1_000);
      }
      // The recorded time lags the send's start by the thread's scheduling; allow a little under the interval.
      long tooClose = gaps.stream().filter(micros -> micros < CrossNodeWakeUp.MIN_SEND_INTERVAL_NANOS / 1_000 * 3 / 4)
          .count();
      assertThat(tooClose).as(times.size() + " notifications for 202 publishes, gaps in microseconds: " + gaps)
          .isLessThanOrEqualTo(1);
    }
  }

  /** A data source whose connections record each notification sent through them, and send nothing. */
  private static final class RecordingNotifications extends DataSourceLookup {
    private final List<Long> times = new ArrayList<>();
    private final List<String> payloads = new ArrayList<>();

    synchronized List<Long> times() {
      return new ArrayList<>(times);
    }

    synchronized List<String> payloads() {
      return new ArrayList<>(payloads);
    }

    @Override
    public DataSource dataSource() {
      return stub(DataSource.class, (method, args) -> {
        if (!method.getName().equals("getConnection")) {
          return null;
        }
        synchronized (this) {
          times.add(System.nanoTime());
        }
        return stub(Connection.class, (connectionMethod, ignored) -> connectionMethod.getName()
            .equals("prepareStatement") ? stub(PreparedStatement.class, (statementMethod, values) -> {
              if (statementMethod.getName().equals("setString") && (int) values[0] == 2) {
                synchronized (this) {
                  payloads.add((String) values[1]);
                }
              }
              return statementMethod.getName().equals("executeBatch") ? new int[1] : null;
            }) : null);
      });
    }

    private static <T> T stub(Class<T> type, java.util.function.BiFunction<Method, Object[], Object> answer) {
      return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
          (proxy, method, args) -> method.getName().equals("hashCode") ? System.identityHashCode(proxy)
              : answer.apply(method, args)));
    }
  }

  @Test
  void a_notification_names_the_outbox_and_partitions_and_falls_back_to_all_when_too_long() {
    assertThat(CrossNodeWakeUp.payload("i-1", "orders", Set.of(3))).isEqualTo("i-1 orders 3");
    Set<Integer> many = new java.util.TreeSet<>();
    for (int p = 0; p < 2000; p++) {
      many.add(p);
    }
    assertThat(CrossNodeWakeUp.payload("i-1", "orders", many)).isEqualTo("i-1 orders *");
  }

  private static OutboxTestContainer node(String worker, String wakeUp, boolean fresh) {
    OutboxTestContainer.Builder builder = OutboxTestContainer.builder(TestDatabase.POSTGRESQL).viaDataSource()
        .config("outbox.worker", worker)
        .config("outbox.wake-up", wakeUp)
        .config("outbox.orders.relay", "recording")
        .config("outbox.orders.partitions", "2")
        .config("outbox.orders.poll-interval", IDLE_POLL)
        .config("outbox.orders.max-poll-interval", IDLE_POLL)
        .beans(RecordingRelay.class);
    return (fresh ? builder : builder.keepSchema()).start();
  }

  /** The worker's first poll happens at start; after it the worker sleeps for {@link #IDLE_POLL}. */
  private static void awaitFirstIdlePoll(OutboxTestContainer workerNode) {
    OutboxAdmin admin = workerNode.select(OutboxAdmin.class);
    await().atMost(Duration.ofSeconds(30)).until(() -> admin.workers().stream()
        .allMatch(worker -> worker.lastRunEnded() != null && !worker.running()));
  }
}
