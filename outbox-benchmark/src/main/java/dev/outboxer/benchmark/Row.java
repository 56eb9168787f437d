package dev.outboxer.benchmark;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** The rows of the benchmark, chosen with {@code -Dbench.rows=1,2,...} or by name. */
enum Row {
  DRAIN_1("1", "drain", "drain a backlog, 1 partition"),
  DRAIN_4("2", "drain4", "drain a backlog, 4 partitions"),
  GROWTH("3", "growth", "drain rate as the backlog grows, 1 partition"),
  PUBLISH("4", "publish", "publish, one message per transaction"),
  LATENCY("5", "latency", "latency from commit to relay"),
  POISON("6", "poison", "one failing group among the others, 4 partitions"),
  MEMORY("7", "memory", "the largest drain in a 256 MB heap"),
  PUBLISH_DURING_DRAIN("8", "contention", "publish latency while another outbox drains, against an idle table");

  private final String number;
  private final String name;
  private final String title;

  Row(String number, String name, String title) {
    this.number = number;
    this.name = name;
    this.title = title;
  }

  String number() {
    return number;
  }

  String title() {
    return title;
  }

  /** Parses {@code 1,2,latency}; {@code all} or an empty value selects every row. */
  static Set<Row> parse(String value) {
    if (value == null || value.isBlank() || value.trim().equalsIgnoreCase("all")) {
      return EnumSet.allOf(Row.class);
    }
    Set<Row> rows = EnumSet.noneOf(Row.class);
    for (String part : value.split(",")) {
      String wanted = part.trim().toLowerCase(Locale.ROOT);
      Row found = null;
      for (Row row : values()) {
        if (row.number.equals(wanted) || row.name.equals(wanted)) {
          found = row;
        }
      }
      if (found == null) {
        throw new IllegalArgumentException("bench.rows=" + value + ": '" + part.trim() + "' is not a row; use numbers or"
            + " names from " + names() + " separated by commas, or all");
      }
      rows.add(found);
    }
    return rows;
  }

  private static List<String> names() {
    List<String> names = new ArrayList<>();
    for (Row row : values()) {
      names.add(row.number + "=" + row.name);
    }
    return names;
  }
}
