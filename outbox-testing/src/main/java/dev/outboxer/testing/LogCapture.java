package dev.outboxer.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Captures what a logger (and its children) logs while open, so that a test can assert that an
 * operator is told: {@code try (LogCapture log = LogCapture.of("dev.outboxer")) { ... }}.
 */
public final class LogCapture extends Handler implements AutoCloseable {

  private final Logger logger;
  private final Level previousLevel;
  private final List<LogRecord> records = new ArrayList<>();

  private LogCapture(Logger logger) {
    this.logger = logger;
    this.previousLevel = logger.getLevel();
    setLevel(Level.ALL);
    logger.addHandler(this);
    if (previousLevel == null || previousLevel.intValue() > Level.FINE.intValue()) {
      logger.setLevel(Level.FINE);
    }
  }

  public static LogCapture of(String loggerName) {
    return new LogCapture(Logger.getLogger(loggerName));
  }

  public static LogCapture of(Class<?> type) {
    return of(type.getName());
  }

  @Override
  public synchronized void publish(LogRecord record) {
    records.add(record);
  }

  /** Messages logged at WARNING or above, with the message of their exception appended. */
  public synchronized List<String> warnings() {
    return messages(Level.WARNING);
  }

  /** Messages logged at the level or above. */
  public synchronized List<String> messages(Level atLeast) {
    List<String> found = new ArrayList<>();
    for (LogRecord record : records) {
      if (record.getLevel().intValue() >= atLeast.intValue()) {
        String text = record.getMessage();
        if (record.getThrown() != null) {
          text += " | " + record.getThrown();
        }
        found.add(text);
      }
    }
    return found;
  }

  public synchronized List<LogRecord> records() {
    return List.copyOf(records);
  }

  @Override
  public void flush() {}

  @Override
  public void close() {
    logger.removeHandler(this);
    logger.setLevel(previousLevel);
  }
}
