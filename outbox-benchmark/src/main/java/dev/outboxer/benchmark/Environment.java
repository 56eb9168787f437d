package dev.outboxer.benchmark;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/** What the numbers depend on: load, JVM, database, versions. */
final class Environment {

  private Environment() {}

  /** The 1, 5 and 15 minute load averages from /proc/loadavg, or the JVM's 1-minute figure elsewhere. */
  static String loadAverage() {
    try {
      String[] parts = Files.readString(Path.of("/proc/loadavg"), StandardCharsets.US_ASCII).trim().split("\\s+");
      return parts[0] + " " + parts[1] + " " + parts[2];
    } catch (IOException | RuntimeException notLinux) {
      double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
      return load < 0 ? "unknown" : String.format(Locale.ROOT, "%.2f (1 min)", load);
    }
  }

  static String jvm() {
    return System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version") + ", "
        + Runtime.getRuntime().availableProcessors() + " cores, max heap "
        + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MB";
  }

  /** Product and version, with the durability setting that decides commit cost. */
  static String database(RawJdbc raw) {
    try (Connection connection = raw.connect(); Statement statement = connection.createStatement()) {
      DatabaseMetaData meta = connection.getMetaData();
      String text = meta.getDatabaseProductName() + " " + meta.getDatabaseProductVersion();
      String setting = meta.getDatabaseProductName().toLowerCase(Locale.ROOT).contains("postgres")
          ? "SHOW synchronous_commit" : "SELECT @@innodb_flush_log_at_trx_commit";
      try (ResultSet rows = statement.executeQuery(setting)) {
        rows.next();
        text += setting.startsWith("SHOW") ? " (synchronous_commit " + rows.getString(1) + " by default)"
            : " (innodb_flush_log_at_trx_commit=" + rows.getString(1) + ", a server-wide setting)";
      }
      return text + ", at " + raw.database().url();
    } catch (SQLException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }

  /** The commit the Outboxer sources were at, if this runs in a git checkout. */
  static String outboxerCommit() {
    try {
      Process git = new ProcessBuilder("git", "describe", "--always", "--dirty").redirectErrorStream(true).start();
      String out = new String(git.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!git.waitFor(10, TimeUnit.SECONDS) || git.exitValue() != 0 || out.isEmpty() || out.contains(" ")) {
        return "unknown";
      }
      return out;
    } catch (IOException e) {
      return "unknown";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }
}
