package dev.outboxer.chaos;

import java.util.ArrayList;
import java.util.List;

/** The settings a test run takes from system properties, over its preset. */
final class RunArgs {

  private RunArgs() {}

  static String[] forPreset(String preset) {
    List<String> args = new ArrayList<>(List.of("preset=" + preset));
    String database = System.getProperty("outboxer.chaos.database");
    if (database != null && !database.isBlank()) {
      args.add("database=" + database);
    }
    String more = System.getProperty("outboxer.chaos.args", "").trim();
    if (!more.isEmpty()) {
      args.addAll(List.of(more.split("\\s+")));
    }
    return args.toArray(String[]::new);
  }
}
