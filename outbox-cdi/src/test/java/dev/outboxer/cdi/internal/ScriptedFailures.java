package dev.outboxer.cdi.internal;

import dev.outboxer.testing.TestDatabase;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The per-test reset of a test whose {@link ScriptedRelay} fails the records it names by id (with
 * {@link ScriptedRelay#failing}) and sends the others. {@link #begin} before each test leaves the
 * relay with nothing seen, no failure named and that script; {@link #end} after it resets the
 * relay, forgets the failures, deletes the test's rows and closes the test's log capture. It resets
 * nothing else: a test's own observers and tables are its own to reset.
 */
public final class ScriptedFailures {

  /** Failures by message id: the scripted relay fails these records with them, every time it is given them. */
  private final Map<Long, RuntimeException> failures = new ConcurrentHashMap<>();
  private LogCapture logs;

  /**
   * Before a test: the relay reset and scripted to fail the records named from now on.
   *
   * @param capture the test's log capture, closed by {@link #end}
   * @return {@code capture}
   */
  public LogCapture begin(LogCapture capture) {
    logs = capture;
    ScriptedRelay.reset();
    failures.clear();
    ScriptedRelay.script(ScriptedRelay.failing(failures));
    return capture;
  }

  /** The relay fails this message's record with {@code failure}, each time it is given it. */
  public void fail(long id, RuntimeException failure) {
    failures.put(id, failure);
  }

  /** After a test: the relay reset, the failures forgotten, every message and test order deleted, the logs closed. */
  public void end(TestDatabase database) {
    ScriptedRelay.reset();
    failures.clear();
    Rows.clear(database);
    if (logs != null) {
      logs.close();
      logs = null;
    }
  }
}
