package dev.outboxer.benchmark;

import java.util.Random;

/** The shape shared by every contender's publish measurement and latency loop. */
final class Publishing {

  /** Publishes one message, in a transaction of its own. */
  @FunctionalInterface
  interface OneMessage {
    void publish(long sequence) throws Exception;
  }

  /** The contender's table. */
  interface Table {
    void empty() throws Exception;

    long count() throws Exception;
  }

  private Publishing() {}

  /**
   * Messages per second of {@code threads} threads publishing {@code messages} messages between
   * them, each in a transaction of its own, into an empty table; after a single-threaded warm-up
   * of a tenth of them (at most 200), so that every contender is measured with compiled code.
   * Fails unless exactly {@code messages} rows were written.
   */
  static double measure(Table table, int threads, int messages, OneMessage publisher) throws Exception {
    table.empty();
    int warmUp = Math.min(200, messages / 10);
    for (long sequence = 0; sequence < warmUp; sequence++) {
      publisher.publish(sequence);
    }
    table.empty();
    double seconds = Parallel.run(threads, "publish", thread -> {
      for (long sequence = thread; sequence < messages; sequence += threads) {
        publisher.publish(sequence);
      }
    });
    long written = table.count();
    table.empty();
    if (written != messages) {
      throw new IllegalStateException(messages + " messages were published, but " + written + " rows were written");
    }
    return messages / seconds;
  }

  /**
   * Samples of a latency run that are thrown away first, while the code paths warm up: on one node
   * twice as many as it measures, up to 100, so that every partition's worker has run its
   * statements on its pooled connections often enough for PostgreSQL to keep generic plans (pgjdbc
   * prepares a statement on the server at its fifth execution on a connection, PostgreSQL plans it
   * anew for five more; the claim took 1-2 ms to plan each time, 0.05-0.07 ms once kept, in the
   * server's log of a latency run on 2026-12-07). A node that has run for a few seconds is past
   * that; the row measures such a node. Across nodes (after the one-node samples, on nodes already
   * warm) a fifth of what it measures, up to 10.
   */
  static int latencyWarmUp(int samples, boolean remote) {
    return remote ? Math.max(1, Math.min(10, samples / 5)) : Math.min(100, 2 * samples);
  }

  /**
   * The pause before a latency sample, drawn so that publishing does not fall into step with
   * polling: 10-50 ms on one node (whose worker is idle and woken by the commit), 0-200 ms across
   * two (where the worker polls).
   */
  static long latencyPauseMillis(Random random, boolean remote) {
    return remote ? random.nextInt(201) : 10 + random.nextInt(41);
  }
}
