package dev.outboxer.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/** Runs the same work on a few threads that start together, and reports how long they took. */
final class Parallel {

  /** Work of one thread; {@code thread} counts from 0. */
  @FunctionalInterface
  interface Work {
    void run(int thread) throws Exception;
  }

  private Parallel() {}

  /** Runs {@code work} on {@code threads} threads and returns the seconds from their common start to the last one's end. */
  static double run(int threads, String name, Work work) throws Exception {
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch go = new CountDownLatch(1);
    AtomicReference<Exception> failure = new AtomicReference<>();
    List<Thread> started = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      int index = i;
      Thread thread = new Thread(() -> {
        ready.countDown();
        try {
          go.await();
          work.run(index);
        } catch (Exception e) {
          failure.compareAndSet(null, e);
        } catch (Error e) {
          failure.compareAndSet(null, new IllegalStateException(e));
        }
      }, name + "-" + i);
      thread.setDaemon(true);
      thread.start();
      started.add(thread);
    }
    ready.await();
    long start = System.nanoTime();
    go.countDown();
    for (Thread thread : started) {
      thread.join();
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    if (failure.get() != null) {
      throw failure.get();
    }
    return seconds;
  }
}
