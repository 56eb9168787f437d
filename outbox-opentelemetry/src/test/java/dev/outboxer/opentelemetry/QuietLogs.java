package dev.outboxer.opentelemetry;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

/**
 * Keeps the console free of log records a test causes on purpose (stack traces of expected
 * failures), by detaching the named loggers from the console handler until closed. The loggers are
 * held here: java.util.logging forgets the settings of loggers nobody references.
 */
final class QuietLogs implements AutoCloseable {

  private final List<Logger> loggers = new ArrayList<>();

  static QuietLogs of(String... names) {
    QuietLogs quiet = new QuietLogs();
    for (String name : names) {
      Logger logger = Logger.getLogger(name);
      logger.setUseParentHandlers(false);
      quiet.loggers.add(logger);
    }
    return quiet;
  }

  @Override
  public void close() {
    loggers.forEach(logger -> logger.setUseParentHandlers(true));
  }
}
