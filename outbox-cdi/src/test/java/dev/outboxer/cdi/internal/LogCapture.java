package dev.outboxer.cdi.internal;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import java.util.stream.Collectors;

/**
 * Captures what Outboxer logs (the {@code dev.outboxer} logger and its children, or another
 * library's logger) while open, and keeps it off the console: expected failures then leave no
 * stack traces in the test output.
 */
public final class LogCapture implements AutoCloseable {

  private final Logger root;
  private final List<LogRecord> records = new CopyOnWriteArrayList<>();
  private final SimpleFormatter formatter = new SimpleFormatter();
  private final boolean parentHandlers;
  private final Handler handler = new Handler() {
    @Override
    public void publish(LogRecord record) {
      // Formatted in full, stack trace included, as a console or file handler does: a record that cannot be
      // formatted fails the logging call here as it would in a server.
      formatter.format(record);
      records.add(record);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  };

  private LogCapture(String loggerName) {
    root = Logger.getLogger(loggerName);
    handler.setLevel(Level.ALL);
    parentHandlers = root.getUseParentHandlers();
    root.addHandler(handler);
    root.setUseParentHandlers(false);
  }

  /** Captures Outboxer's own logging. */
  public static LogCapture start() {
    return new LogCapture("dev.outboxer");
  }

  /** Captures (and silences) another library's logger, for a failure the test provokes on purpose. */
  public static LogCapture of(String loggerName) {
    return new LogCapture(loggerName);
  }

  /** Records at this level or above. */
  public List<LogRecord> atLeast(Level level) {
    return records.stream().filter(r -> r.getLevel().intValue() >= level.intValue()).toList();
  }

  /** The formatted messages (without stack traces) of records at this level or above. */
  public List<String> messages(Level level) {
    return atLeast(level).stream().map(formatter::formatMessage).toList();
  }

  /** Every record as one text, for assertion descriptions. */
  public String dump() {
    return records.stream().map(r -> r.getLevel() + " " + formatter.formatMessage(r)
            + (r.getThrown() == null ? "" : " [" + r.getThrown() + "]"))
        .collect(Collectors.joining("\n  ", "logged:\n  ", ""));
  }

  public void clear() {
    records.clear();
  }

  @Override
  public void close() {
    root.removeHandler(handler);
    root.setUseParentHandlers(parentHandlers);
  }
}
