package dev.outboxer.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Renders a run's results as Markdown: a header of conditions, the table, and its footnotes. */
final class Report {

  private Report() {}

  /** Conditions of a run, printed above the table. */
  record Header(String title, List<String> facts) {}

  static String markdown(Header header, Results results, int rounds, long maxDrainSeconds) {
    StringBuilder out = new StringBuilder();
    out.append("## ").append(header.title()).append("\n\n");
    for (String fact : header.facts()) {
      out.append("- ").append(fact).append('\n');
    }
    out.append('\n');
    out.append("| what | raw | Outboxer | gruelbox | Outboxer / raw |\n");
    out.append("| --- | --- | --- | --- | --- |\n");
    List<String> footnotes = new ArrayList<>();
    for (Results.Metric metric : results.metrics()) {
      out.append("| ").append(metric.label()).append(" (").append(unitName(metric.unit())).append(')');
      for (Contender contender : Contender.values()) {
        out.append(" | ").append(cell(results, metric, contender, footnotes));
      }
      out.append(" | ").append(ratio(results, metric)).append(" |\n");
    }
    out.append('\n');
    out.append(rounds > 1
        ? "Cells: median (min-max) over " + rounds + " rounds. n/a: the contender has no such feature or path.\n"
        : "Cells: one round. n/a: the contender has no such feature or path.\n");
    for (Map.Entry<String, String> line : results.orderedLines()) {
      out.append("\n**").append(line.getKey()).append("**: ").append(line.getValue()).append('\n');
    }
    List<String> partial = results.partialDrains();
    if (!partial.isEmpty()) {
      out.append("\n`partial`: the drain ran out of its ").append(maxDrainSeconds).append(" s (bench.max-drain-seconds);"
          + " the cell holds the rate of what it drained:\n");
      for (String drain : partial) {
        out.append("- ").append(drain).append('\n');
      }
    }
    if (!results.notes().isEmpty() || !footnotes.isEmpty()) {
      out.append('\n');
      for (String note : results.notes()) {
        out.append("- ").append(note).append('\n');
      }
      for (int i = 0; i < footnotes.size(); i++) {
        out.append("- [").append(i + 1).append("] ").append(footnotes.get(i)).append('\n');
      }
    }
    return out.toString();
  }

  private static String cell(Results results, Results.Metric metric, Contender contender, List<String> footnotes) {
    List<Double> values = results.values(metric.key(), contender);
    List<String> errors = results.errors(metric.key(), contender);
    StringBuilder cell = new StringBuilder();
    if (values.isEmpty() && errors.isEmpty()) {
      return "n/a";
    }
    if (!values.isEmpty()) {
      double median = Stats.median(values);
      cell.append(number(median, metric.unit()));
      if (values.size() > 1) {
        cell.append(" (").append(number(Stats.min(values), metric.unit())).append('-')
            .append(number(Stats.max(values), metric.unit())).append(')');
      }
      if (results.isPartial(metric.key(), contender)) {
        cell.append(" partial");
      }
    }
    if (!errors.isEmpty()) {
      footnotes.add(contender.label() + ", " + metric.label() + ": " + errors.size() + " error(s), first: "
          + errors.get(0).replace('\n', ' ').replace("|", "/"));
      cell.append(values.isEmpty() ? "" : " ").append("error [").append(footnotes.size()).append(']');
    }
    return cell.toString();
  }

  private static String ratio(Results results, Results.Metric metric) {
    if (!metric.unit().equals("msg/s")) {
      return "";
    }
    List<Double> raw = results.values(metric.key(), Contender.RAW);
    List<Double> outboxer = results.values(metric.key(), Contender.OUTBOXER);
    if (raw.isEmpty() || outboxer.isEmpty() || Stats.median(raw) == 0) {
      return "";
    }
    return String.format(Locale.ROOT, "%.2f", Stats.median(outboxer) / Stats.median(raw));
  }

  private static String unitName(String unit) {
    return unit.equals("x") ? "ratio" : unit;
  }

  static String number(double value, String unit) {
    return switch (unit) {
      case "msg/s" -> String.format(Locale.ROOT, "%,.0f", value);
      case "ms" -> String.format(Locale.ROOT, value < 10 ? "%.2f" : "%.1f", value);
      default -> String.format(Locale.ROOT, "%.2f", value);
    };
  }
}
