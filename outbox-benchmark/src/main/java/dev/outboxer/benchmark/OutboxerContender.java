package dev.outboxer.benchmark;

import dev.outboxer.Outbox;
import dev.outboxer.testing.OutboxTestContainer;
import jakarta.transaction.UserTransaction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Outboxer, measured through its API only: {@code Outbox.publish} and a relay bean driven by the real workers. */
final class OutboxerContender {

  /** How long a fresh node may take to start and hand over its first batch. */
  static final Duration START_TIMEOUT = Duration.ofSeconds(120);
  private static final Duration LATENCY_TIMEOUT = Duration.ofSeconds(60);

  private final OutboxerNodes nodes;
  private final BenchSettings settings;
  /** Row 5's rounds so far, to alternate which of its two one-node lines goes first. */
  private int latencyRounds;

  OutboxerContender(OutboxerNodes nodes) {
    this.nodes = nodes;
    this.settings = nodes.settings();
  }

  /**
   * Fills a backlog with the publish-only node, then starts a fresh node whose workers drain it.
   * With a failing group, the relay fails every message of that group and the drain waits for the
   * others only.
   */
  DrainOutcome drain(String outbox, int backlog, String failingGroup) throws Exception {
    return drain(outbox, backlog, failingGroup, "bench");
  }

  /**
   * As {@link #drain(String, int, String)}, through the relay named {@code relay}: {@code bench}
   * (batches in the worker's JTA transaction) or {@code bench-plain} ({@link PlainBenchRelay}:
   * batches in plain database transactions, as for a Kafka, SQS or RabbitMQ relay).
   */
  DrainOutcome drain(String outbox, int backlog, String failingGroup, String relay) throws Exception {
    double fill = nodes.fill(outbox, backlog);
    return drainFilled(settings, nodes.raw(), outbox, backlog, failingGroup, settings.maxDrain(), relay).filledIn(fill);
  }

  /** Starts a fresh node whose workers drain the backlog already in the table; also run in the 256 MB child JVM. */
  static DrainOutcome drainFilled(BenchSettings settings, RawJdbc raw, String outbox, long backlog, String failingGroup,
      Duration limit) throws Exception {
    return drainFilled(settings, raw, outbox, backlog, failingGroup, limit, "bench");
  }

  /** As above, through the relay named {@code relay} ({@code bench} or {@code bench-plain}). */
  @SuppressWarnings("try") // the node works while it is open; nothing in the body needs to call it
  static DrainOutcome drainFilled(BenchSettings settings, RawJdbc raw, String outbox, long backlog, String failingGroup,
      Duration limit, String relay) throws Exception {
    long[] ids = raw.idRange(outbox);
    if (ids == null || raw.count(outbox) != backlog) {
      throw new IllegalStateException("Outbox '" + outbox + "' should hold a backlog of " + backlog + " messages but holds "
          + raw.count(outbox));
    }
    long expected = failingGroup == null ? backlog : backlog - raw.countGroup(outbox, failingGroup);
    DrainProbe probe = new DrainProbe(ids[0], ids[1] - ids[0] + 1, true);
    BenchRelay.plan(outbox, new BenchRelay.Plan(probe, failingGroup, null));
    boolean finished;
    try (OutboxTestContainer node = OutboxerNodes.workerNode(settings, outbox, relay)) {
      if (!probe.await(1, START_TIMEOUT)) {
        throw new IllegalStateException("A fresh Outboxer node did not relay anything of outbox '" + outbox + "' within "
            + START_TIMEOUT.toSeconds() + " s");
      }
      finished = probe.await(expected, limit);
    } finally {
      BenchRelay.clear(outbox);
    }
    long left = raw.count(outbox);
    if (left != backlog - probe.committed()) {
      throw new IllegalStateException("Outbox '" + outbox + "': " + probe.committed() + " of " + backlog + " messages"
          + " were relayed and committed, but " + left + " rows are left instead of " + (backlog - probe.committed()));
    }
    if (failingGroup != null && finished && left != backlog - expected) {
      throw new IllegalStateException("The failing group " + failingGroup + " should have kept all its "
          + (backlog - expected) + " messages, but " + left + " are left");
    }
    return DrainOutcome.of(probe, expected, finished);
  }

  /** Messages per second: {@code threads} threads, each publishing one message per JTA transaction. */
  double publish(int threads, boolean synchronousCommit, int messages) throws Exception {
    OutboxTestContainer node = nodes.publisher(synchronousCommit);
    Outbox outbox = node.select(Outbox.class);
    UserTransaction transaction = node.select(UserTransaction.class);
    return Publishing.measure(nodes.table(OutboxerNodes.ONE_PARTITION), threads, messages, sequence -> {
      transaction.begin();
      try {
        outbox.publish(OutboxerNodes.ONE_PARTITION, BenchMessage.of(sequence, settings.groups()));
      } catch (Exception | Error e) {
        transaction.rollback();
        throw e;
      }
      transaction.commit();
    });
  }

  /**
   * Milliseconds per single-message publishing transaction (begin to commit) on the publish-only
   * node into the one-partition outbox: first while a fresh node drains a backlog of the
   * four-partition outbox in the same table, then with the table idle. The drain's outcome comes
   * with them, counting the batches the relay confirmed whose transaction then rolled back (a
   * deadlock would show there); a message committed twice or out of group order fails it.
   */
  Contention publishDuringDrain(int samples) throws Exception {
    String draining = OutboxerNodes.FOUR_PARTITIONS;
    int backlog = settings.backlog();
    nodes.fill(draining, backlog);
    RawJdbc raw = nodes.raw();
    java.util.concurrent.ExecutorService drainer = java.util.concurrent.Executors.newSingleThreadExecutor();
    java.util.concurrent.Future<DrainOutcome> drain = drainer.submit(() ->
        drainFilled(settings, raw, draining, backlog, null, settings.maxDrain()));
    List<Double> duringDrain = new ArrayList<>();
    try {
      long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
      while (raw.count(draining) == backlog && !drain.isDone()) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("The drain of outbox '" + draining + "' did not start within "
              + START_TIMEOUT.toSeconds() + " s");
        }
        Thread.sleep(1);
      }
      Random pauses = new Random(8);
      for (long sequence = 0; duringDrain.size() < samples && !drain.isDone(); sequence++) {
        duringDrain.add(timedPublish(sequence));
        Thread.sleep(pauses.nextInt(3));
      }
      DrainOutcome outcome = drain.get();
      raw.deleteOutbox(OutboxerNodes.ONE_PARTITION);
      List<Double> idle = new ArrayList<>();
      for (long sequence = 0; idle.size() < duringDrain.size(); sequence++) {
        idle.add(timedPublish(sequence));
      }
      raw.deleteOutbox(OutboxerNodes.ONE_PARTITION);
      return new Contention(duringDrain, idle, outcome);
    } finally {
      drain.cancel(true);
      drainer.shutdownNow();
    }
  }

  private double timedPublish(long sequence) throws Exception {
    OutboxTestContainer node = nodes.publisher(true);
    Outbox api = node.select(Outbox.class);
    UserTransaction transaction = node.select(UserTransaction.class);
    long start = System.nanoTime();
    transaction.begin();
    try {
      api.publish(OutboxerNodes.ONE_PARTITION, BenchMessage.of(sequence, settings.groups()));
    } catch (Exception | Error e) {
      transaction.rollback();
      throw e;
    }
    transaction.commit();
    return (System.nanoTime() - start) / 1e6;
  }

  /**
   * Row 8's samples in milliseconds.
   *
   * @param duringDrain publishing transactions while the other outbox drained
   * @param idle the same number of transactions with nothing else running
   * @param drain the drain that ran meanwhile
   */
  record Contention(List<Double> duringDrain, List<Double> idle, DrainOutcome drain) {}

  /**
   * Milliseconds from just before the publishing transaction's commit to the relay receiving the
   * message, on one fresh worker node with 4 partitions. Local: the node publishes itself (its
   * commit wakes its worker). Remote: the publish-only node publishes, the worker node finds the
   * message when its worker polls. Plain local: as local, on another fresh node whose relay does
   * not use the worker's transaction ({@link PlainBenchRelay}), as a Kafka, SQS or RabbitMQ relay;
   * after the other two in the first round, before them in the second, and so on.
   */
  Latencies latency(int localSamples, int remoteSamples) throws Exception {
    String outbox = OutboxerNodes.FOUR_PARTITIONS;
    nodes.raw().truncate();
    Receipts receipts = new Receipts();
    BenchRelay.plan(outbox, new BenchRelay.Plan(null, null, receipts));
    // Every other round the plain node goes first: on a machine whose load changes, neither line always runs later.
    boolean plainFirst = latencyRounds++ % 2 == 1;
    try {
      List<Double> plainLocal = plainFirst ? plainLocal(outbox, receipts, localSamples, remoteSamples) : null;
      List<Double> local;
      List<Double> remote;
      try (OutboxTestContainer node = OutboxerNodes.workerNode(settings, outbox)) {
        local = samples(node, outbox, receipts, false, localSamples, 0);
        remote = samples(nodes.publisher(true), outbox, receipts, true, remoteSamples, localSamples + 100);
      }
      if (!plainFirst) {
        plainLocal = plainLocal(outbox, receipts, localSamples, remoteSamples);
      }
      return new Latencies(local, remote, plainLocal);
    } finally {
      BenchRelay.clear(outbox);
      nodes.raw().truncate();
    }
  }

  /** One-node samples on a fresh node whose relay does not use the worker's transaction. */
  private List<Double> plainLocal(String outbox, Receipts receipts, int localSamples, int remoteSamples)
      throws Exception {
    try (OutboxTestContainer plainNode = OutboxerNodes.workerNode(settings, outbox, "bench-plain")) {
      return samples(plainNode, outbox, receipts, false, localSamples, localSamples + remoteSamples + 200);
    }
  }

  private List<Double> samples(OutboxTestContainer publisher, String outbox, Receipts receipts, boolean remote,
      int samples, long firstSequence) throws Exception {
    Outbox api = publisher.select(Outbox.class);
    UserTransaction transaction = publisher.select(UserTransaction.class);
    Random pauses = new Random(42);
    List<Double> millis = new ArrayList<>();
    int warmUp = Publishing.latencyWarmUp(samples, remote);
    for (int i = 0; i < warmUp + samples; i++) {
      Thread.sleep(Publishing.latencyPauseMillis(pauses, remote));
      transaction.begin();
      long id;
      try {
        id = api.publish(outbox, BenchMessage.of(firstSequence + i, settings.groups()));
      } catch (Exception | Error e) {
        transaction.rollback();
        throw e;
      }
      long beforeCommit = System.nanoTime();
      transaction.commit();
      long received = receipts.await(id, LATENCY_TIMEOUT);
      if (i >= warmUp) {
        millis.add((received - beforeCommit) / 1e6);
      }
    }
    return millis;
  }
}
