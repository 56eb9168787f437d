package dev.outboxer.cdi.internal.work;

import dev.outboxer.cdi.internal.cdi.NodeIdentity;
import dev.outboxer.cdi.internal.config.ConfigKeys;
import dev.outboxer.cdi.internal.config.OutboxConfiguration;
import dev.outboxer.cdi.internal.jdbc.DataSourceLookup;
import dev.outboxer.cdi.internal.store.Database;
import dev.outboxer.cdi.internal.store.Dialect;
import dev.outboxer.spi.CoreSettings;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Wakes the workers of <i>other</i> nodes when a publish commits, through PostgreSQL's
 * LISTEN/NOTIFY, so that a message published on a node without workers (or whose partition another
 * node's worker happens to be claiming) goes out in milliseconds instead of at the next poll.
 *
 * <p>Why it looks the way it does:
 * <ul>
 *   <li>The notification is sent <i>after</i> the publishing transaction committed, on a connection
 *       of its own, not inside the transaction: PostgreSQL refuses to prepare a transaction that ran
 *       NOTIFY, and a business transaction with a JMS session next to the database is prepared
 *       (two-phase commit). It also keeps NOTIFY's commit-time lock out of the application's
 *       transactions.</li>
 *   <li>One background thread sends them, coalesced: everything published while it sent the last
 *       notification, or within 10 ms of it, goes out in the next, one
 *       per outbox, naming the partitions. A publish never waits for it.</li>
 *   <li>Only a node that runs no workers for the outbox notifies: one that does has woken its own
 *       worker of the partition, which claims it at once.</li>
 *   <li>Each node listens on one connection of its own, held for as long as it runs workers, and
 *       ignores its own notifications (its workers were woken in process already).</li>
 * </ul>
 *
 * <p>What it does not guarantee: a notification can be lost (the listening connection broke, the
 * sender could not get a connection, the node was not listening yet). Nothing depends on it: every
 * worker still polls ({@code poll-interval}, {@code max-poll-interval}), so a lost notification
 * costs latency, never a message. It needs the data source path ({@code @OutboxPersistence
 * DataSource} or {@code outbox.datasource}): through an EntityManager Outboxer has no connection
 * outside a transaction, and the PostgreSQL driver's {@code PGConnection} (through {@code
 * Connection.unwrap}) for reading notifications. Where either is missing, it says so once at INFO
 * and the nodes poll.
 */
@ApplicationScoped
public class CrossNodeWakeUp {

  private static final Logger LOG = Logger.getLogger(CrossNodeWakeUp.class.getName());
  static final String CHANNEL = "outboxer_wake_up";
  private static final int LISTEN_WAIT_MILLIS = 500;
  private static final int MAX_PAYLOAD_CHARS = 4_000;
  private static final String ALL_PARTITIONS = "*";
  private static final long MAX_RECONNECT_DELAY_MILLIS = 30_000;
  /**
   * The shortest time between two notifications of this node. Each one is a transaction on the
   * database, and without a floor a node publishing one message per transaction sent one
   * notification per publish, which cost as much as the publishing transaction itself. The first
   * publish after a quiet spell still goes out at once; a publish that follows another within the
   * interval waits for its remainder (never longer: another node learns of it within this time plus
   * one round trip). 10 ms, not 2 as before: a publish-only node publishing one message per
   * transaction on one thread sent a notification every third to sixth publish, and its publish
   * rate came out 10-20 % lower than with {@code wake-up=poll} (benchmark row 4, interleaved runs).
   * The price: during a burst another node learns of a publish up to 10 ms later (a worker that
   * finds a full batch reads on without waiting for one); the first publish after a quiet spell,
   * which row 5's latency across nodes measures, is not delayed.
   */
  static final long MIN_SEND_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

  @Inject OutboxConfiguration configuration;
  @Inject Database database;
  @Inject DataSourceLookup dataSources;
  @Inject NodeIdentity identity;
  @Inject Workers workers;

  /** Per outbox, the partitions published to since the last notification was sent. */
  private final Map<String, Set<Integer>> pending = new LinkedHashMap<>();
  private volatile Boolean enabled;
  private volatile boolean stopped;
  private Thread sender;
  private Thread listener;

  /**
   * Called once a publishing transaction committed: schedules a notification to the other nodes.
   * Never blocks on the database.
   */
  public void published(String outbox, int partition) {
    // A node that runs workers for the outbox has just woken its own worker of the partition, which
    // claims it at once: other nodes would find it claimed or empty. Only publish-only nodes notify.
    if (!enabled() || workers.partitionsInForce(outbox).isPresent()) {
      return;
    }
    synchronized (pending) {
      pending.computeIfAbsent(outbox, name -> new TreeSet<>()).add(partition);
      if (sender == null) {
        sender = daemon("outboxer-wake-up-sender", this::sendLoop);
        sender.start();
      }
      pending.notifyAll();
    }
  }

  /** Starts listening for other nodes' publishes; called when this node's workers start. */
  public void listen() {
    if (!enabled()) {
      return;
    }
    if (pgConnectionClass() == null) {
      LOG.info("Outboxer: the PostgreSQL driver's org.postgresql.PGConnection is not visible to the application, so"
          + " this node cannot read wake-up notifications; its workers find messages published on other nodes at"
          + " their next poll. (Open Liberty: make the driver's library visible with <classloader"
          + " commonLibraryRef=\"...\"/> in the application's configuration. WildFly: a dependency on the driver's"
          + " module, <module name=\"org.postgresql\"/> under <dependencies> in WEB-INF/jboss-deployment-structure.xml."
          + " Java SE: put the driver on the class path.)");
      return;
    }
    synchronized (pending) {
      if (listener == null && !stopped) {
        listener = daemon("outboxer-wake-up-listener", this::listenLoop);
        listener.start();
      }
    }
  }

  /** Stops both threads; pending notifications are dropped (the other nodes poll). */
  public void stop() {
    Thread[] threads;
    synchronized (pending) {
      stopped = true;
      pending.clear();
      pending.notifyAll();
      threads = new Thread[] {sender, listener};
    }
    for (Thread thread : threads) {
      if (thread != null) {
        thread.interrupt();
        try {
          thread.join(2_000);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  private boolean enabled() {
    Boolean known = enabled;
    if (known == null) {
      known = decide();
      enabled = known;
    }
    return known && !stopped;
  }

  private boolean decide() {
    if (!configuration.notifyWakeUp() || database.dialect() != Dialect.POSTGRESQL) {
      return false;
    }
    if (dataSources.dataSource() == null) {
      LOG.info("Outboxer: workers on other nodes find this node's messages at their next poll, because Outboxer"
          + " writes through the EntityManager here. Give it the JTA data source (an @OutboxPersistence DataSource"
          + " bean or " + ConfigKeys.global(CoreSettings.DATASOURCE) + ") and a publish wakes them at once through LISTEN/NOTIFY.");
      return false;
    }
    return true;
  }

  private void sendLoop() {
    long lastSent = System.nanoTime() - MIN_SEND_INTERVAL_NANOS;
    while (true) {
      Map<String, Set<Integer>> batch;
      synchronized (pending) {
        try {
          while (pending.isEmpty() && !stopped) {
            pending.wait();
          }
          // The first publish after a quiet spell goes out at once; while publishes keep coming, what they
          // published waits for the rest of the interval and goes out in one notification.
          long wait;
          while (!stopped && (wait = lastSent + MIN_SEND_INTERVAL_NANOS - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.timedWait(pending, wait);
          }
        } catch (InterruptedException e) {
          return;
        }
        if (stopped) {
          return;
        }
        batch = new LinkedHashMap<>(pending);
        pending.clear();
      }
      lastSent = System.nanoTime();
      send(batch);
    }
  }

  private void send(Map<String, Set<Integer>> batch) {
    DataSource dataSource = dataSources.dataSource();
    // Outside any transaction the data source hands out an unenlisted connection in auto-commit:
    // the notification goes out at once, on its own commit. A NOTIFY gives its transaction an id,
    // and so a commit record that would wait for the WAL flush (one every few milliseconds, competing
    // with the publishers' own flushes); a wake-up hint needs no durability (lost, the other nodes
    // poll), so this transaction alone commits without waiting for it.
    try (Connection connection = dataSource.getConnection();
        PreparedStatement notify = connection.prepareStatement(
            "SELECT pg_notify(?, ?), set_config('synchronous_commit', 'off', true)")) {
      for (Map.Entry<String, Set<Integer>> entry : batch.entrySet()) {
        notify.setString(1, CHANNEL);
        notify.setString(2, payload(identity.instance(), entry.getKey(), entry.getValue()));
        notify.addBatch();
      }
      notify.executeBatch();
    } catch (SQLException | RuntimeException e) {
      LOG.log(Level.FINE, "Outboxer: could not notify the other nodes of new messages; they find them at their"
          + " next poll", e);
    }
  }

  private void listenLoop() {
    long delay = 1_000;
    while (!stopped) {
      try (Connection connection = dataSources.dataSource().getConnection()) {
        Object pg = connection.unwrap(pgConnectionClass());
        Method getNotifications = pg.getClass().getMethod("getNotifications", int.class);
        getNotifications.setAccessible(true);
        try (Statement statement = connection.createStatement()) {
          statement.execute("LISTEN " + CHANNEL);
        }
        delay = 1_000;
        while (!stopped) {
          Object notifications = getNotifications.invoke(pg, LISTEN_WAIT_MILLIS);
          for (int i = 0; notifications != null && i < Array.getLength(notifications); i++) {
            Object notification = Array.get(notifications, i);
            Method parameter = notification.getClass().getMethod("getParameter");
            parameter.setAccessible(true);
            wake((String) parameter.invoke(notification));
          }
          if (Thread.interrupted()) {
            return;
          }
        }
      } catch (Exception | LinkageError e) {
        if (stopped) {
          return;
        }
        LOG.log(Level.FINE, "Outboxer: the wake-up listener lost its connection; listening again in " + delay + "ms"
            + " (meanwhile the workers poll)", e);
        try {
          TimeUnit.MILLISECONDS.sleep(delay);
        } catch (InterruptedException interrupted) {
          return;
        }
        delay = Math.min(MAX_RECONNECT_DELAY_MILLIS, delay * 2);
      }
    }
  }

  /** Reads "instance outbox p1,p2,..." and wakes those workers, unless this node sent it. */
  void wake(String payload) {
    if (payload == null) {
      return;
    }
    String[] parts = payload.split(" ", 3);
    if (parts.length != 3 || parts[0].equals(identity.instance())) {
      return;
    }
    if (ALL_PARTITIONS.equals(parts[2])) {
      workers.wakeAll(parts[1]);
      return;
    }
    for (String partition : parts[2].split(",")) {
      try {
        workers.wake(parts[1], Integer.parseInt(partition));
      } catch (NumberFormatException ignored) {
        // Not ours: someone else notifies on the channel. Nothing to wake.
      }
    }
  }

  static String payload(String instance, String outbox, Set<Integer> partitions) {
    StringBuilder text = new StringBuilder(instance).append(' ').append(outbox).append(' ');
    int start = text.length();
    boolean first = true;
    for (int partition : partitions) {
      text.append(first ? "" : ",").append(partition);
      first = false;
    }
    if (text.length() > MAX_PAYLOAD_CHARS) {
      // PostgreSQL takes payloads below 8000 bytes: with that many partitions, wake them all.
      text.setLength(start);
      text.append(ALL_PARTITIONS);
    }
    return text.toString();
  }

  private static Class<?> pgConnectionClass() {
    for (ClassLoader loader : new ClassLoader[] {Thread.currentThread().getContextClassLoader(),
        CrossNodeWakeUp.class.getClassLoader()}) {
      try {
        return Class.forName("org.postgresql.PGConnection", false, loader);
      } catch (ClassNotFoundException | LinkageError | NullPointerException e) {
        // try the next one
      }
    }
    return null;
  }

  private static Thread daemon(String name, Runnable body) {
    Thread thread = new Thread(body, name);
    thread.setDaemon(true);
    return thread;
  }
}
