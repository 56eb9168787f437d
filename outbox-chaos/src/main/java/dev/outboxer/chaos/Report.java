package dev.outboxer.chaos;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The checker's findings for one run, its verdict and the table it prints. A run passes when
 * nothing committed was lost, nothing rolled back arrived, every group arrived in order for an
 * id-filtering consumer, every duplicate was a whole-batch redelivery after a fault, no two batches
 * of a partition were accepted interleaved, every dead letter used up max-attempts, and the outbox
 * drained. A run that committed nothing or injected no fault proves nothing and fails too. With
 * {@link #exactlyOnce} (relay {@code local}, or a consumer behind the inbox) any duplicate fails it.
 */
final class Report {

  private static final int EXAMPLES_PER_KIND = 5;

  int committed;
  int acceptedDistinct;
  int acceptedTotal;
  int loss;
  int stillPending;
  int phantoms;
  int orderGroups;
  int orderIds;
  int duplicates;
  int duplicatesAfterFault;
  int duplicatesNotWholeBatch;
  int duplicatesUnattributed;
  int overlaps;
  int overlapsSameToken;
  int dead;
  int deadViolations;
  int refused;
  int injectedFailures;
  long maxToken;
  boolean drained;
  /** Whether every duplicate is a violation: nothing may reach the handler twice. */
  boolean exactlyOnce;
  /** relay=local: runs of the handler, committed or rolled back with their batch. */
  int handlerRuns;
  /** inbox=on: arrivals the inbox dropped before the handler. */
  int droppedByInbox;
  /** consumer-rewind-every: rewinds of the Kafka or RabbitMQ consumer, each redelivering at least one arrival. */
  long consumerRewinds;
  final Map<String, Integer> faults = new TreeMap<>();
  private final Map<String, List<String>> examples = new LinkedHashMap<>();
  private final Map<String, String> figures = new LinkedHashMap<>();
  private String title = "chaos run";

  void example(String kind, String text) {
    List<String> list = examples.computeIfAbsent(kind, k -> new ArrayList<>());
    if (list.size() < EXAMPLES_PER_KIND) {
      list.add(text);
    }
  }

  void figure(String name, String value) {
    figures.put(name, value);
  }

  void title(String text) {
    title = text;
  }

  int loss() { return loss; }
  int phantoms() { return phantoms; }
  int orderViolations() { return orderIds; }
  int orderViolationGroups() { return orderGroups; }
  int duplicates() { return duplicates; }
  int duplicatesNotWholeBatch() { return duplicatesNotWholeBatch; }
  int duplicatesUnattributed() { return duplicatesUnattributed; }
  int overlaps() { return overlaps; }
  int deadViolations() { return deadViolations; }
  int committed() { return committed; }
  int refused() { return refused; }
  int handlerRuns() { return handlerRuns; }
  int droppedByInbox() { return droppedByInbox; }
  long consumerRewinds() { return consumerRewinds; }
  boolean drained() { return drained; }

  /** The number of process and relay faults logged. */
  int faultCount() {
    return faults.values().stream().mapToInt(Integer::intValue).sum();
  }

  /** What broke, one line each; empty when the run passed. */
  List<String> failures() {
    List<String> failures = new ArrayList<>();
    if (committed == 0) {
      failures.add("nothing was committed: the run proves nothing");
    }
    if (faultCount() == 0) {
      failures.add("no fault was injected: the run proves nothing");
    }
    if (!drained) {
      failures.add("the outbox did not drain (" + stillPending + " pending)");
    }
    if (loss > 0) {
      failures.add(loss + " committed message(s) lost");
    }
    if (phantoms > 0) {
      failures.add(phantoms + " message(s) of rolled-back transactions arrived");
    }
    if (orderIds > 0) {
      failures.add(orderIds + " message(s) out of order in " + orderGroups + " group(s)");
    }
    if (exactlyOnce && duplicates > 0) {
      failures.add(duplicates + " duplicate(s) reached the handler, where exactly once is promised");
    }
    if (duplicatesNotWholeBatch > 0) {
      failures.add(duplicatesNotWholeBatch + " duplicate(s) not shaped as whole-batch redelivery");
    }
    if (duplicatesUnattributed > 0) {
      failures.add(duplicatesUnattributed + " duplicate(s) with no fault to blame");
    }
    if (overlaps > 0) {
      failures.add(overlaps + " batch(es) accepted interleaved with another batch of their partition (stale writer)");
    }
    if (deadViolations > 0) {
      failures.add(deadViolations + " dead letter(s) against max-attempts");
    }
    return failures;
  }

  boolean passed() {
    return failures().isEmpty();
  }

  /** The table, the figures, and examples of each violation. */
  String table() {
    StringBuilder out = new StringBuilder();
    out.append(title).append('\n');
    row(out, "check", "found", "");
    row(out, "loss (committed, never accepted, not dead)", Integer.toString(loss), ok(loss == 0));
    row(out, "phantoms (accepted, never committed)", Integer.toString(phantoms), ok(phantoms == 0));
    row(out, "order violations (ids / groups)", orderIds + " / " + orderGroups, ok(orderIds == 0));
    if (exactlyOnce) {
      row(out, "duplicates (exactly once: none allowed)", Integer.toString(duplicates), ok(duplicates == 0));
    } else {
      row(out, "duplicates (whole-batch after a fault)", duplicates + " (" + duplicatesAfterFault + ")", "");
    }
    row(out, "  not whole-batch", Integer.toString(duplicatesNotWholeBatch), ok(duplicatesNotWholeBatch == 0));
    row(out, "  no fault to blame", Integer.toString(duplicatesUnattributed), ok(duplicatesUnattributed == 0));
    row(out, "overlapping batches (same token)", overlaps + " (" + overlapsSameToken + ")", ok(overlaps == 0));
    row(out, "dead letters (against max-attempts)", dead + " (" + deadViolations + ")", ok(deadViolations == 0));
    row(out, "drained (pending left)", (drained ? "yes" : "no") + " (" + stillPending + ")", ok(drained));
    out.append("verdict: ").append(passed() ? "PASS" : "FAIL: " + String.join("; ", failures())).append('\n');
    out.append("committed ").append(committed).append(", accepted ").append(acceptedDistinct).append(" distinct / ")
        .append(acceptedTotal).append(" total, fenced refusals ").append(refused).append(", injected failures ")
        .append(injectedFailures).append(", highest token ").append(maxToken)
        .append(maxToken <= 1 ? " (the core hands out no fencing tokens yet)" : "").append('\n');
    if (handlerRuns > 0) {
      // In the worker's transaction the difference is the runs rolled back with their batch.
      out.append("local handler: ").append(handlerRuns).append(" runs, ").append(acceptedTotal)
          .append(" rows committed\n");
    }
    if (droppedByInbox > 0 || exactlyOnce && acceptedTotal > 0 && handlerRuns == 0) {
      out.append("inbox: ").append(acceptedTotal + droppedByInbox).append(" arrivals at the consumer, ")
          .append(droppedByInbox).append(" dropped by the inbox as copies, ").append(acceptedTotal)
          .append(" reached the handler")
          .append(consumerRewinds > 0 ? "; the consumer rewound " + consumerRewinds + " times (as after a crash"
              + " between its database commit and its offset commit or acknowledgement)" : "").append('\n');
    }
    out.append("faults: ").append(faults.isEmpty() ? "none" : faults.toString()).append('\n');
    figures.forEach((name, value) -> out.append(name).append(": ").append(value).append('\n'));
    examples.forEach((kind, list) -> list.forEach(text -> out.append("  ").append(kind).append(": ").append(text)
        .append('\n')));
    return out.toString();
  }

  private static String ok(boolean ok) {
    return ok ? "ok" : "VIOLATED";
  }

  private static void row(StringBuilder out, String name, String value, String verdict) {
    out.append(String.format("%-46s %-14s %s%n", name, value, verdict));
  }

  @Override
  public String toString() {
    return table();
  }
}
