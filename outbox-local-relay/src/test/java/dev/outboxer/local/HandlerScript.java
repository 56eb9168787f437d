package dev.outboxer.local;

import dev.outboxer.spi.OutboxRecord;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Tells the tests' handlers when to fail and how, and records every call. Failures are planned per
 * message (outbox, group, sequence number) for a number of calls; the calls are counted whether
 * their work committed or not.
 */
@ApplicationScoped
public class HandlerScript {

  /** How a handler fails. */
  public enum Failure {
    /** Writes its effect, flushes it, then throws a checked exception (the transaction is not marked). */
    THROW_AFTER_WRITE,
    /** Writes its effect in a {@code @Transactional} bean that throws: the interceptor marks the transaction. */
    THROW_THROUGH_TRANSACTIONAL,
    /** As above, but catches the exception and returns normally. */
    SWALLOW_ROLLBACK,
    /** Writes its effect and returns; the worker's commit then fails (a synchronization throws). */
    FAIL_COMMIT,
    /** Writes its effect and returns; the worker's database connection is killed just before the commit. */
    KILL_CONNECTION_AT_COMMIT,
    /** Persists an effect the database refuses, without flushing, and returns normally. */
    REFUSED_AT_FLUSH,
    /**
     * Writes its effect, then waits {@link #SLOW} in a database call (deaf to the worker's interrupt, as a slow
     * query is) and returns normally: longer than the outbox's relay-timeout.
     */
    SLOW_AFTER_WRITE,
    /**
     * Writes its effect and returns {@link #NEARLY_TIMED_OUT} after its write: past the point where
     * the local relay stops starting handlers (relay-timeout less its margin of 100 ms) but, in a
     * batch of its own on a relay-timeout of 1s, before the worker stops listening.
     */
    SLOW_INTO_THE_MARGIN
  }

  /** How long a {@link Failure#SLOW_INTO_THE_MARGIN} handler takes after its write, for relay-timeout=1s. */
  public static final java.time.Duration NEARLY_TIMED_OUT = java.time.Duration.ofMillis(930);

  /** How long a {@link Failure#SLOW_AFTER_WRITE} handler takes after its write. */
  public static final java.time.Duration SLOW = java.time.Duration.ofMillis(1_600);

  /** One call of a handler. */
  public record Call(String outbox, long id, String group, int seq, int attempts, String thread, long nanos,
      Failure failure) {}

  private record Plan(Failure failure, AtomicInteger left) {}

  private final Map<String, Plan> plans = new ConcurrentHashMap<>();
  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private final List<String> violations = new CopyOnWriteArrayList<>();

  /** The handler of the message fails the given number of times, then succeeds. */
  public void fail(String outbox, String group, int seq, Failure failure, int times) {
    plans.put(key(outbox, group, seq), new Plan(failure, new AtomicInteger(times)));
  }

  /** Records a call and says how it should fail, or {@code null} for not at all. */
  Failure called(OutboxRecord record, String group, int seq) {
    Plan plan = plans.get(key(record.outbox(), group, seq));
    Failure failure = plan != null && plan.left().getAndUpdate(left -> Math.max(0, left - 1)) > 0 ? plan.failure() : null;
    calls.add(new Call(record.outbox(), record.id(), group, seq, record.attempts(), Thread.currentThread().getName(),
        System.nanoTime(), failure));
    return failure;
  }

  void violation(String text) {
    violations.add(text);
  }

  public List<String> violations() {
    return List.copyOf(violations);
  }

  /** Calls of the handlers for groups starting with the prefix, in call order. */
  public List<Call> calls(String groupPrefix) {
    List<Call> found = new ArrayList<>();
    for (Call call : calls) {
      if (call.group().startsWith(groupPrefix)) {
        found.add(call);
      }
    }
    return found;
  }

  public long callsOf(String outbox, String group, int seq) {
    return calls.stream().filter(c -> c.outbox().equals(outbox) && c.group().equals(group) && c.seq() == seq).count();
  }

  private static String key(String outbox, String group, int seq) {
    return outbox + "/" + group + "/" + seq;
  }
}
