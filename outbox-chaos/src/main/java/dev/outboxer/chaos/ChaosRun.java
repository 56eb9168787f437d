package dev.outboxer.chaos;

import dev.outboxer.testing.DatabaseGate;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The orchestrator of one run: sets up the databases, starts the broker (if any), the workers and
 * the publisher as separate JVMs, injects faults on a seeded schedule while the publisher runs,
 * lets the outbox drain, stops everything and hands the evidence to the {@link Checker}.
 *
 * <p>Everything a run leaves is under {@code <outboxer.chaos.dir>/<run>-<time>/}: one log per
 * process, {@code orchestrator.log} (every fault with its time), {@code report.txt}.
 */
final class ChaosRun {

  /** What a worker is doing, as the fault schedule sees it. */
  private enum State { HEALTHY, PAUSED, DOWN }

  private final Databases databases;
  private final Destination destination;
  private final Path dir;
  private final PrintStream log;
  private final long started = System.nanoTime();
  private final Map<String, State> states = new ConcurrentHashMap<>();
  private final List<ChildProcess> workers = new ArrayList<>();
  private final ExecutorService restarts = Executors.newCachedThreadPool();
  private ChaosSettings settings;
  private Connection faultLog;
  private final List<DatabaseGate> gates = new CopyOnWriteArrayList<>();
  private static final Pattern URL = Pattern.compile("(jdbc:[a-z]+://)([^/:?]+)(?::(\\d+))?(.*)");

  private ChaosRun(ChaosSettings settings) throws IOException {
    this.settings = settings;
    this.databases = new Databases(settings.database());
    this.destination = new Destination(databases);
    String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
    Path base = Path.of(System.getProperty("outboxer.chaos.dir", "target/chaos"));
    this.dir = Files.createDirectories(base.resolve(settings.run() + "-" + stamp).toAbsolutePath());
    this.log = new PrintStream(Files.newOutputStream(dir.resolve("orchestrator.log")), true, StandardCharsets.UTF_8);
  }

  /** Runs the experiment the settings describe and returns the checker's report. */
  static Report run(ChaosSettings settings) throws Exception {
    ChaosRun run = new ChaosRun(settings);
    try {
      return run.execute();
    } finally {
      run.log.close();
    }
  }

  private Report execute() throws Exception {
    say("chaos run '" + settings.run() + "' in " + dir);
    say("settings: " + settings);
    if (settings.worker().equals("quarkus")) {
      say("workers: the Quarkus application " + QuarkusWorker.jar());
    }
    say("outbox database " + settings.database().url() + ", destination database " + databases.destinationDatabaseName());
    settings.database().assumeAvailable();
    // The child JVMs' class path, for diagnosing a process that cannot start.
    Files.writeString(dir.resolve("classpath.txt"), ChildProcess.classPath().replace(File.pathSeparator, "\n"));
    if (settings.relay().equals("jms") && databases.postgres()) {
      int prepared = databases.maxPreparedTransactions();
      if (prepared <= 0) {
        throw new IllegalStateException("PostgreSQL has max_prepared_transactions=" + prepared + ": the jms relay enlists"
            + " the broker and PostgreSQL in one XA transaction, which needs prepared transactions. Run ALTER SYSTEM SET"
            + " max_prepared_transactions = 20 and restart PostgreSQL (.ci/run does it), or use relay=table");
      }
      say("max_prepared_transactions=" + prepared);
    }
    int orphans = databases.rollBackOrphanedPreparedTransactions();
    if (orphans > 0) {
      say("rolled back " + orphans + " prepared transaction(s) an earlier run left in " + databases.outboxDatabaseName());
    }
    OutboxerTables.reset(databases);
    try (Connection connection = databases.outbox()) {
      Ledger.reset(connection, settings.groups());
      LocalHandler.reset(connection);
    }
    destination.reset(NodeConfig.OUTBOX, settings.partitions());
    if (settings.inbox()) {
      destination.resetInbox();
    }
    faultLog = databases.destination("chaos-orchestrator");

    ChildProcess broker = null;
    BrokerConsumer consumer = null;
    ChildProcess publisher = null;
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    boolean drained = false;
    Properties published = new Properties();
    long publishStart = 0;
    long drainEnd = 0;
    try {
      if (settings.brokerProcess()) {
        broker = new ChildProcess("broker", dir, jvmOptions("broker"), BrokerMain.class,
            withArgs(settings.toArgs(), "kind=" + settings.relay(), "dir=" + dir));
        broker.start();
        Path address = dir.resolve("broker.address");
        await("the " + settings.relay() + " broker", Duration.ofSeconds(120), () -> Files.exists(address), broker);
        settings = settings.with("broker", Files.readString(address).trim());
        say("broker ready at " + settings.broker());
      } else if (settings.relay().equals("rabbitmq")) {
        BrokerConsumer.declareRabbitQueue(settings);
        say("RabbitMQ: exchange and queue " + NodeConfig.rabbitName(settings) + " declared afresh on 127.0.0.1:5672");
      }
      if (settings.brokerRelay()) {
        consumer = new BrokerConsumer(settings, databases, destination);
      }
      for (int n = 1; n <= settings.workers(); n++) {
        String name = "worker-" + n;
        List<String> workerArgs = withArgs(settings.toArgs(), "node=" + name, "dir=" + dir);
        ChildProcess worker = settings.worker().equals("quarkus")
            ? new ChildProcess(name, dir, jvmOptions(name), QuarkusWorker.jar(), workerArgs)
            : new ChildProcess(name, dir, jvmOptions(name), WorkerMain.class, workerArgs);
        if (name.equals(settings.netnsWorker())) {
          // In a network namespace of its own (netns.sh up), reaching the database over the veth pair.
          worker.launcher(List.of("ip", "netns", "exec", settings.netns()));
          say(name + " runs in network namespace " + settings.netns() + ", its database at " + settings.netnsHost());
        }
        worker.start();
        workers.add(worker);
        states.put(name, State.HEALTHY);
      }
      for (ChildProcess worker : workers) {
        await(worker.name(), Duration.ofSeconds(180), () -> worker.logged(WorkerMain.READY), worker);
      }
      say(workers.size() + " workers ready");

      publisher = new ChildProcess("publisher", dir, jvmOptions("publisher"), PublisherMain.class,
          withArgs(settings.toArgs(), "dir=" + dir));
      publisher.start();
      ChildProcess started = publisher;
      await("the publisher", Duration.ofSeconds(180), () -> started.logged(PublisherMain.READY), publisher);
      say("publisher ready: faults start");
      publishStart = System.nanoTime();
      injectFaults(publisher, scheduler, publishStart);
      scheduler.shutdown();
      if (!scheduler.awaitTermination(60, TimeUnit.SECONDS)) {
        say("pending fault actions did not finish in 60s");
      }
      restarts.shutdown();
      if (!restarts.awaitTermination(200, TimeUnit.SECONDS)) {
        say("restarts did not finish in 200s");
      }
      healAll();
      say("faults stopped");
      if (!publisher.waitFor(Duration.ofMinutes(10))) {
        throw new IllegalStateException("The publisher did not finish within 10 minutes after the fault period; see "
            + publisher.log());
      }
      if (publisher.exitValue() != 0) {
        throw new IllegalStateException("The publisher failed (exit " + publisher.exitValue() + "); see " + publisher.log());
      }
      try (var in = Files.newBufferedReader(dir.resolve("publisher.properties"))) {
        published.load(in);
      }
      say("publisher done: " + published);
      drained = drain(consumer);
      drainEnd = System.nanoTime();
      say(drained ? "drained" : "did not drain: no progress for " + settings.drainTimeout());
    } finally {
      scheduler.shutdownNow();
      restarts.shutdownNow();
      for (ChildProcess worker : workers) {
        worker.stop(Duration.ofSeconds(10));
      }
      if (publisher != null) {
        publisher.stop(Duration.ofSeconds(5));
      }
      if (consumer != null) {
        awaitQuietConsumer(consumer);
        consumer.close();
      }
      if (broker != null) {
        broker.stop(Duration.ofSeconds(10));
      }
      faultLog.close();
      gates.forEach(DatabaseGate::close);
      if (!settings.netnsWorker().isEmpty()) {
        ip("link", "set", settings.netnsLink(), "up");
      }
    }

    Report report = Checker.check(Checker.read(databases), settings.maxAttemptsNumber(), drained,
        settings.exactlyOnce());
    report.consumerRewinds = consumer == null ? 0 : consumer.rewinds();
    report.title("chaos run '" + settings.run() + "': " + settings.database().configValue() + ", relay "
        + settings.relay() + (settings.inbox() ? " through the inbox" : "") + ", fencing "
        + (settings.fencing() ? "on" : "off") + ", " + settings.workers()
        + (settings.worker().equals("quarkus") ? " Quarkus" : "") + " workers, "
        + settings.partitions() + " partitions, " + settings.messages() + " messages over " + settings.groups()
        + " groups, seed " + settings.seed());
    double publishSeconds = Double.parseDouble(published.getProperty("seconds", "0"));
    double totalSeconds = (drainEnd - publishStart) / 1e9;
    report.figure("publisher", "committed " + published.getProperty("committed") + ", rolled back "
        + published.getProperty("rolled-back") + ", failed " + published.getProperty("failed") + " messages in "
        + published.getProperty("transactions") + " transactions over " + String.format("%.0f s", publishSeconds));
    report.figure("time", String.format("publish+faults %.0f s, until drained %.0f s, whole run %.0f s", publishSeconds,
        totalSeconds, (System.nanoTime() - started) / 1e9));
    report.figure("throughput", String.format("%.0f msg/s committed and delivered from the first publish until"
        + " drained; the publisher committed %.0f msg/s (paced for %.0f)", totalSeconds > 0 ? report.committed()
        / totalSeconds : 0, publishSeconds > 0 ? report.committed() / publishSeconds : 0,
        settings.messages() / (double) settings.faultPeriod().toSeconds()));
    report.figure("run directory", dir.toString());
    Files.writeString(dir.resolve("report.txt"), report.table());
    log.println(report.table());
    return report;
  }

  private void injectFaults(ChildProcess publisher, ScheduledExecutorService scheduler, long publishStart)
      throws Exception {
    Random random = new Random(settings.seed());
    List<String> kinds = settings.faults();
    long faultEnd = publishStart + settings.faultPeriod().toNanos();
    double mean = settings.faultEvery().toMillis();
    Thread hangWatch = watchHangs(publisher, faultEnd);
    try {
      scheduleFaults(publisher, scheduler, random, kinds, faultEnd, mean);
    } finally {
      hangWatch.interrupt();
      hangWatch.join(5_000);
    }
  }

  private void scheduleFaults(ChildProcess publisher, ScheduledExecutorService scheduler, Random random,
      List<String> kinds, long faultEnd, double mean) throws Exception {
    while (System.nanoTime() < faultEnd || publisher.alive()) {
      long wait = (long) Math.min(mean * 3, -Math.log(1 - random.nextDouble()) * mean);
      Thread.sleep(Math.max(200, wait));
      if (kinds.isEmpty() || (System.nanoTime() >= faultEnd && !publisher.alive())) {
        continue;
      }
      String kind = pick(kinds, random);
      List<ChildProcess> healthy = workers.stream().filter(w -> states.get(w.name()) == State.HEALTHY).toList();
      // Kills and pauses leave at least one worker untouched, so that the run makes progress;
      // ending sessions does not take a worker out.
      if (healthy.isEmpty() || (!kind.equals("connections") && healthy.size() < 2)) {
        continue;
      }
      ChildProcess target = healthy.get(random.nextInt(healthy.size()));
      if (kind.equals("partition")) {
        target = healthy.stream().filter(w -> w.name().equals(settings.netnsWorker())).findFirst().orElse(null);
        if (target == null) {
          continue;
        }
      } else if (kind.equals("db-down") && target.name().equals(settings.netnsWorker())) {
        // The gate listens on the host's loopback, which the namespace does not reach.
        continue;
      }
      if (kind.equals("pause")) {
        // A pause matters when it catches a worker inside a batch: prefer one that delivered just now.
        Set<String> busy;
        synchronized (this) {
          busy = destination.recentWorkers(faultLog, 5);
        }
        List<ChildProcess> inBatch = healthy.stream().filter(w -> busy.contains(w.name())).toList();
        if (!inBatch.isEmpty()) {
          target = inBatch.get(random.nextInt(inBatch.size()));
        }
      }
      switch (kind) {
        case "kill" -> kill(target, scheduler);
        case "connections" -> cutConnections(target, "connections");
        case "db-down" -> startWhileDatabaseDown(target, scheduler);
        case "partition" -> partition(target, scheduler);
        default -> pause(target, scheduler, random);
      }
    }
  }

  /**
   * Ends the sessions of a worker whose relay hangs (a share {@code hang-cut-rate} of the hangs), as
   * a lease or an idle-session timeout would: another worker can then take the partition while the
   * hung relay still holds the batch, which comes back as a stale writer unless it is fenced.
   */
  private Thread watchHangs(ChildProcess publisher, long faultEnd) {
    Random random = new Random(settings.seed() + 1);
    Thread thread = new Thread(() -> {
      long seen = 0;
      try (Connection connection = databases.destination("chaos-orchestrator-hangs")) {
        while (!Thread.currentThread().isInterrupted()
            && (System.nanoTime() < faultEnd || publisher.alive())) {
          for (Destination.Hang hang : destination.hangsSince(connection, seen)) {
            seen = hang.ts();
            ChildProcess target = workers.stream().filter(w -> w.name().equals(hang.worker())).findFirst().orElse(null);
            if (target != null && target.alive() && states.get(target.name()) == State.HEALTHY
                && random.nextDouble() < settings.hangCutRate()) {
              cutConnections(target, "hang+connections");
            }
          }
          Thread.sleep(200);
        }
      } catch (InterruptedException stop) {
        // the fault period is over
      } catch (SQLException e) {
        say("watching relay hangs failed: " + e);
      }
    }, "chaos-hang-watch");
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  /**
   * The next fault kind: pauses (the fault fencing is about) weigh most, kills least (a restarted
   * worker boots for a while, which the machine's two cores feel).
   */
  private static String pick(List<String> kinds, Random random) {
    double pause = kinds.contains("pause") ? 0.45 : 0;
    double connections = kinds.contains("connections") ? 0.35 : 0;
    double kill = kinds.contains("kill") ? 0.2 : 0;
    double dbDown = kinds.contains("db-down") ? 0.15 : 0;
    double partition = kinds.contains("partition") ? 0.25 : 0;
    double roll = random.nextDouble() * (pause + connections + kill + dbDown + partition);
    return roll < pause ? "pause" : roll < pause + connections ? "connections"
        : roll < pause + connections + kill ? "kill" : roll < pause + connections + kill + dbDown ? "db-down"
        : "partition";
  }

  /**
   * Kills a worker and starts it again while its database refuses connections (a {@link DatabaseGate}
   * that opens after {@code db-down}): the JVM must start and wait, and begin relaying once the
   * database answers. It takes new faults only once Outboxer started in it.
   */
  private void startWhileDatabaseDown(ChildProcess target, ScheduledExecutorService scheduler) throws Exception {
    String db = settings.database().configValue();
    Matcher url = URL.matcher(settings.database().url());
    if (!url.matches()) {
      say("db-down skipped: cannot read host and port of " + settings.database().url());
      return;
    }
    states.put(target.name(), State.DOWN);
    DatabaseGate gate = new DatabaseGate(url.group(2), url.group(3) == null ? defaultPort() : Integer.parseInt(url.group(3)));
    gates.add(gate);
    String gated = url.group(1) + "127.0.0.1:" + gate.port() + url.group(4);
    event("db-down", target.name(), "kill -9 of pid " + target.pid() + ", restarted with its database refusing"
        + " connections for " + settings.dbDown().toMillis() + "ms (port " + gate.port() + ")");
    target.kill();
    target.nextStartOptions(List.of("-Doutboxer.test." + db + ".url=" + gated, "-D" + WorkerMain.DATABASE_DOWN + "=true"));
    restarts.submit(() -> {
      try {
        target.start();
        event("restart", target.name(), "incarnation " + target.incarnation() + ", pid " + target.pid()
            + ", database down");
        await(target.name() + " (started while its database is down)", Duration.ofSeconds(180),
            () -> target.logged(WorkerMain.READY), target);
        boolean waits = target.logged("waiting for the database");
        Thread.sleep(Math.max(0, settings.dbDown().toMillis()));
        gate.open();
        event("db-up", target.name(), "its database answers; " + (waits ? "it had started and waited"
            : "it had NOT logged that it waits for the database"));
        await(target.name() + " (Outboxer started once its database answered)", Duration.ofSeconds(120),
            () -> target.logged("the database answers after"), target);
        event("db-started", target.name(), "Outboxer started once the database answered");
      } catch (Exception e) {
        say("db-down of " + target.name() + " FAILED: " + e);
        try {
          gate.open();
        } catch (IOException already) {
          // open
        }
        if (!target.alive()) {
          try {
            target.start();
            event("restart", target.name(), "after its failed db-down, incarnation " + target.incarnation());
            await(target.name() + " (restarted)", Duration.ofSeconds(180), () -> target.logged(WorkerMain.READY), target);
          } catch (Exception again) {
            say("restart of " + target.name() + " failed: " + again);
          }
        }
      }
      states.put(target.name(), State.HEALTHY);
    });
  }

  private int defaultPort() {
    return databases.postgres() ? 5432 : 3306;
  }

  /**
   * Takes the link of the worker in its own network namespace down for {@code partition}, longer
   * than the lease: no reset reaches either side, its packets are dropped. Its claim must lapse,
   * another worker take over, and its late sends be fenced.
   */
  private void partition(ChildProcess target, ScheduledExecutorService scheduler) throws Exception {
    long millis = settings.partition().toMillis();
    states.put(target.name(), State.PAUSED);
    event("partition", target.name(), "link " + settings.netnsLink() + " down for " + millis + "ms (no reset)");
    ip("link", "set", settings.netnsLink(), "down");
    scheduler.schedule(() -> {
      ip("link", "set", settings.netnsLink(), "up");
      try {
        event("heal", target.name(), "link " + settings.netnsLink() + " up");
      } catch (SQLException e) {
        say("logging the heal failed: " + e);
      }
      states.put(target.name(), State.HEALTHY);
    }, millis, TimeUnit.MILLISECONDS);
  }

  private void ip(String... args) {
    List<String> command = new ArrayList<>(List.of("ip"));
    command.addAll(List.of(args));
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!process.waitFor(10, TimeUnit.SECONDS) || process.exitValue() != 0) {
        say(String.join(" ", command) + " failed: " + output);
      }
    } catch (IOException e) {
      say(String.join(" ", command) + " failed: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void kill(ChildProcess target, ScheduledExecutorService scheduler) throws Exception {
    states.put(target.name(), State.DOWN);
    event("kill", target.name(), "kill -9 of pid " + target.pid());
    target.kill();
    // Restarted after a second; it takes new faults only once it is up again (booting takes a while).
    scheduler.schedule(() -> restarts.submit(() -> {
      try {
        target.start();
        event("restart", target.name(), "incarnation " + target.incarnation() + ", pid " + target.pid());
        await(target.name() + " (restarted)", Duration.ofSeconds(180), () -> target.logged(WorkerMain.READY), target);
      } catch (Exception e) {
        say("restart of " + target.name() + " failed: " + e);
      }
      states.put(target.name(), State.HEALTHY);
    }), 1, TimeUnit.SECONDS);
  }

  private void cutConnections(ChildProcess target, String kind) throws SQLException {
    // Logged once the sessions are gone, so that the batch they broke had started before the entry.
    int killed = databases.killOutboxConnections("chaos-" + target.name(), target.pid());
    event(kind, target.name(), killed + " outbox connection(s) of pid " + target.pid() + " ended");
  }

  private void pause(ChildProcess target, ScheduledExecutorService scheduler, Random random) throws Exception {
    long min = settings.pauseMin().toMillis();
    long millis = min + (long) (random.nextDouble() * Math.max(0, settings.pauseMax().toMillis() - min));
    // Half the pauses also lose their database sessions meanwhile, as a lease or an idle-session
    // timeout would end them: that is when another worker can take the paused one's partitions.
    boolean cut = random.nextDouble() < settings.pauseCutRate();
    states.put(target.name(), State.PAUSED);
    event("pause", target.name(), "SIGSTOP of pid " + target.pid() + " for " + millis + "ms"
        + (cut ? ", its connections ended halfway" : ""));
    target.pause();
    if (cut) {
      scheduler.schedule(() -> {
        try {
          cutConnections(target, "pause+connections");
        } catch (SQLException e) {
          say("cutting the connections of paused " + target.name() + " failed: " + e);
        }
      }, millis / 2, TimeUnit.MILLISECONDS);
    }
    scheduler.schedule(() -> {
      try {
        target.resume();
        event("resume", target.name(), "SIGCONT of pid " + target.pid());
      } catch (Exception e) {
        say("resuming " + target.name() + " failed: " + e);
      }
      states.put(target.name(), State.HEALTHY);
    }, millis, TimeUnit.MILLISECONDS);
  }

  /** After the fault period: every worker running and not paused. */
  private void healAll() throws Exception {
    if (!settings.netnsWorker().isEmpty()) {
      ip("link", "set", settings.netnsLink(), "up");
    }
    for (ChildProcess worker : workers) {
      if (worker.alive()) {
        worker.resume();
      } else {
        worker.start();
        event("restart", worker.name(), "after the fault period, incarnation " + worker.incarnation());
      }
      states.put(worker.name(), State.HEALTHY);
    }
  }

  /**
   * Waits until the outbox has no pending message and the consumer (if any) received nothing for 3
   * s. Gives up after {@code drain-timeout} without progress: a pending count that did not go down
   * and a consumer that received nothing. A consumer still reading a backlog (one database
   * transaction per arrival behind the inbox, on a loaded machine) is not stuck.
   */
  private boolean drain(BrokerConsumer consumer) throws Exception {
    long timeout = settings.drainTimeout().toNanos();
    long deadline = System.nanoTime() + timeout;
    int quiet = 0;
    long lastReceived = -1;
    long leastPending = Long.MAX_VALUE;
    while (System.nanoTime() < deadline) {
      long pending;
      try (Connection connection = databases.outbox()) {
        pending = OutboxerTables.pending(connection, NodeConfig.OUTBOX);
      }
      long received = consumer == null ? 0 : consumer.received();
      quiet = pending == 0 && received == lastReceived ? quiet + 1 : 0;
      if (received != lastReceived || pending < leastPending) {
        deadline = System.nanoTime() + timeout;
      }
      lastReceived = received;
      leastPending = Math.min(leastPending, pending);
      if (quiet >= 3) {
        return true;
      }
      Thread.sleep(1000);
    }
    return false;
  }

  private void awaitQuietConsumer(BrokerConsumer consumer) throws InterruptedException {
    long last = -1;
    for (int i = 0; i < 30 && consumer.received() != last; i++) {
      last = consumer.received();
      Thread.sleep(1000);
    }
  }

  private synchronized void event(String kind, String target, String detail) throws SQLException {
    destination.event(faultLog, kind, target, detail);
    log.println(elapsed() + " " + kind + " " + target + ": " + detail);
  }

  private void say(String text) {
    String line = elapsed() + " " + text;
    log.println(line);
    System.out.println("[chaos] " + line);
  }

  private String elapsed() {
    return String.format("%7.1fs", (System.nanoTime() - started) / 1e9);
  }

  private List<String> jvmOptions(String name) {
    List<String> options = new ArrayList<>(List.of(
        "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:ActiveProcessorCount=1",
        "-Dorg.jboss.logging.provider=jdk",
        "-DObjectStoreEnvironmentBean.objectStoreDir=" + dir.resolve("narayana").resolve(name),
        "-Dcom.arjuna.ats.arjuna.objectstore.objectStoreDir=" + dir.resolve("narayana").resolve(name),
        "-DCoreEnvironmentBean.nodeIdentifier=chaos-" + name,
        "-Djava.util.logging.config.file=" + loggingConfig()));
    String db = settings.database().configValue();
    for (String key : List.of("url", "user", "password")) {
      String value = System.getProperty("outboxer.test." + db + "." + key);
      if (value != null) {
        options.add("-Doutboxer.test." + db + "." + key + "=" + value);
      }
    }
    if (name.equals(settings.netnsWorker())) {
      Matcher url = URL.matcher(settings.database().url());
      if (!url.matches()) {
        throw new IllegalArgumentException("netns-worker: cannot read the host of " + settings.database().url());
      }
      options.add("-Doutboxer.test." + db + ".url=" + url.group(1) + settings.netnsHost()
          + (url.group(3) == null ? "" : ":" + url.group(3)) + url.group(4));
    }
    if (!settings.fencing()) {
      // The core's switch for its own lease checks (honoured once fenced claims land).
      options.add("-Doutboxer.fencing=off");
    }
    return options;
  }

  /** INFO and above, one line each: the process logs stay readable. */
  private Path loggingConfig() {
    Path file = dir.resolve("logging.properties");
    if (!Files.exists(file)) {
      try {
        Files.writeString(file, String.join("\n",
            "handlers=java.util.logging.ConsoleHandler",
            ".level=INFO",
            "org.hibernate.level=WARNING",
            "org.jboss.weld.level=WARNING",
            "org.apache.kafka.level=WARNING",
            "org.apache.activemq.level=WARNING",
            "java.util.logging.ConsoleHandler.level=ALL",
            "java.util.logging.SimpleFormatter.format=%1$tT.%1$tL %4$s %3$s: %5$s%6$s%n", ""));
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
    return file;
  }

  private static List<String> withArgs(List<String> args, String... more) {
    List<String> all = new ArrayList<>(args);
    all.addAll(List.of(more));
    return all;
  }

  /** A condition to wait for. */
  private interface Check {
    boolean holds() throws Exception;
  }

  private void await(String what, Duration timeout, Check check, ChildProcess process) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!check.holds()) {
      if (!process.alive()) {
        throw new IllegalStateException(what + " ended before it was ready; see " + process.log());
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(what + " was not ready within " + timeout.toSeconds() + "s; see " + process.log());
      }
      Thread.sleep(250);
    }
  }

}
