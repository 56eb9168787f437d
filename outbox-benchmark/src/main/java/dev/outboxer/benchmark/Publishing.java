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

  /** Samples of a latency run that are thrown away first, while the code paths warm up. */
  static int latencyWarmUp(int samples) {
    return Math.max(1, Math.min(10, samples / 5));
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
