package dev.outboxer.chaos;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Reads the ledger, the destination and what is left in the outbox after a run has drained, and
 * judges Outboxer's promises from outside. See the module README for each check.
 */
final class Checker {

  /** One recorded delivery attempt (or broker arrival). */
  record Delivery(long ts, long id, String group, int partition, long token, String worker, String batch,
      long batchStart, long batchStartMs, String outcome) {
    boolean accepted() {
      return Destination.ACCEPTED.equals(outcome);
    }
  }

  /** One fault. */
  record Event(long ts, long atMs, String kind, String target, String detail) {}

  /**
   * How long before its batch reached the relay a fault of the same worker may still have undone
   * it: the claim and the read happen before, in the same transaction. Wall-clock time of the one
   * machine all processes share.
   */
  static final long CLAIM_GRACE_MS = 2_000;

  /** Separates a broker arrival's batch from its lane (e.g. {@code token-7@kafka-2}): see {@link #checkOverlap}. */
  static final String LANE = "@";

  /** Everything the checker reads. */
  record Inputs(List<Ledger.Entry> ledger, List<Delivery> deliveries, List<Event> events,
      Map<Long, OutboxerTables.Leftover> leftovers) {}

  private Checker() {}

  static Inputs read(Databases databases) throws SQLException {
    List<Ledger.Entry> ledger;
    Map<Long, OutboxerTables.Leftover> leftovers;
    List<Delivery> deliveries = new ArrayList<>();
    try (Connection outbox = databases.outbox()) {
      ledger = Ledger.read(outbox);
      leftovers = OutboxerTables.leftovers(outbox, NodeConfig.OUTBOX);
      // relay=local: what the handlers committed with the deletions (empty for the other relays).
      deliveries.addAll(LocalHandler.read(outbox));
    }
    List<Event> events = new ArrayList<>();
    try (Connection destination = databases.destination("chaos-checker"); Statement statement = destination.createStatement()) {
      try (ResultSet rows = statement.executeQuery("SELECT ts, message_id, group_key, partition_no, token, worker,"
          + " batch_id, batch_start, batch_start_ms, outcome FROM chaos_delivery ORDER BY ts")) {
        while (rows.next()) {
          deliveries.add(new Delivery(rows.getLong(1), rows.getLong(2), rows.getString(3), rows.getInt(4),
              rows.getLong(5), rows.getString(6), rows.getString(7), rows.getLong(8), rows.getLong(9),
              rows.getString(10)));
        }
      }
      try (ResultSet rows = statement.executeQuery("SELECT ts, at_ms, kind, target, detail FROM chaos_event ORDER BY ts")) {
        while (rows.next()) {
          events.add(new Event(rows.getLong(1), rows.getLong(2), rows.getString(3), rows.getString(4),
              rows.getString(5)));
        }
      }
    }
    // One order for both databases' rows: every stamp comes from chaos_clock.
    deliveries.sort(Comparator.comparingLong(Delivery::ts));
    return new Inputs(ledger, deliveries, events, leftovers);
  }

  /** {@link #check(Inputs, long, boolean, boolean)} for a relay that may duplicate after faults. */
  static Report check(Inputs in, long maxAttempts, boolean drained) {
    return check(in, maxAttempts, drained, false);
  }

  /**
   * @param maxAttempts the run's max-attempts ({@link Long#MAX_VALUE} for infinity)
   * @param drained whether the outbox had no pending message when the run stopped
   * @param exactlyOnce whether every duplicate is a violation (relay {@code local}, or a consumer
   *     behind the inbox), not only those that are no whole-batch redelivery after a fault
   */
  static Report check(Inputs in, long maxAttempts, boolean drained, boolean exactlyOnce) {
    Report report = new Report();
    report.drained = drained;
    report.exactlyOnce = exactlyOnce;
    Map<Long, Ledger.Entry> committed = new HashMap<>();
    for (Ledger.Entry entry : in.ledger()) {
      committed.put(entry.id(), entry);
    }
    report.committed = committed.size();

    // Arrivals without a partition (broker relays without the header): the ledger knows it.
    List<Delivery> accepted = new ArrayList<>();
    for (Delivery delivery : in.deliveries()) {
      switch (delivery.outcome()) {
        case Destination.REFUSED -> report.refused++;
        case Destination.FAILED -> report.injectedFailures++;
        case LocalHandler.RAN -> report.handlerRuns++;
        case Destination.DROPPED -> report.droppedByInbox++;
        default -> {
          Delivery fixed = delivery;
          Ledger.Entry entry = committed.get(delivery.id());
          if (delivery.partition() < 0 && entry != null) {
            fixed = new Delivery(delivery.ts(), delivery.id(), delivery.group(), entry.partition(), delivery.token(),
                delivery.worker(), delivery.batch(), delivery.batchStart(), delivery.batchStartMs(), delivery.outcome());
          }
          accepted.add(fixed);
          report.maxToken = Math.max(report.maxToken, delivery.token());
        }
      }
    }
    report.acceptedTotal = accepted.size();

    Set<Long> dead = new HashSet<>();
    for (OutboxerTables.Leftover leftover : in.leftovers().values()) {
      if (leftover.dead()) {
        dead.add(leftover.id());
        report.dead++;
        if (maxAttempts == Long.MAX_VALUE || leftover.attempts() != maxAttempts) {
          report.deadViolations++;
          report.example("dead letter", "message " + leftover.id() + " is dead with " + leftover.attempts()
              + " attempts (max-attempts=" + (maxAttempts == Long.MAX_VALUE ? "infinity" : maxAttempts) + "): "
              + leftover.lastError());
        }
      } else {
        report.stillPending++;
      }
    }

    Map<Long, List<Delivery>> byId = new LinkedHashMap<>();
    for (Delivery delivery : accepted) {
      byId.computeIfAbsent(delivery.id(), id -> new ArrayList<>()).add(delivery);
    }
    report.acceptedDistinct = byId.size();

    for (Ledger.Entry entry : in.ledger()) {
      if (!byId.containsKey(entry.id()) && !dead.contains(entry.id())) {
        report.loss++;
        report.example("loss", "message " + entry.id() + " (group " + entry.group() + ", seq " + entry.seq()
            + ") was committed and never accepted" + (in.leftovers().containsKey(entry.id()) ? "; still pending" : ""));
      }
    }
    for (Long id : byId.keySet()) {
      if (!committed.containsKey(id)) {
        report.phantoms++;
        report.example("phantom", "message " + id + " was accepted but never committed (a rolled-back transaction)");
      }
    }

    checkOrder(in.ledger(), accepted, dead, report);
    checkDuplicates(accepted, in.events(), byId, report);
    checkOverlap(accepted, report);
    for (Event event : in.events()) {
      report.faults.merge(event.kind(), 1, Integer::sum);
    }
    return report;
  }

  /** A consumer that drops every id not above the last it accepted must still see each group in ledger order. */
  private static void checkOrder(List<Ledger.Entry> ledger, List<Delivery> accepted, Set<Long> dead, Report report) {
    Map<String, List<Ledger.Entry>> expected = new TreeMap<>();
    Map<Long, Ledger.Entry> byId = new HashMap<>();
    for (Ledger.Entry entry : ledger) {
      if (!dead.contains(entry.id())) {
        expected.computeIfAbsent(entry.group(), group -> new ArrayList<>()).add(entry);
        byId.put(entry.id(), entry);
      }
    }
    Map<String, List<Delivery>> arrivals = new HashMap<>();
    for (Delivery delivery : accepted) {
      if (byId.containsKey(delivery.id())) {
        arrivals.computeIfAbsent(byId.get(delivery.id()).group(), group -> new ArrayList<>()).add(delivery);
      }
    }
    for (Map.Entry<String, List<Ledger.Entry>> group : expected.entrySet()) {
      List<Delivery> seen = arrivals.getOrDefault(group.getKey(), List.of());
      long lastId = Long.MIN_VALUE;
      int lastSeq = 0;
      Set<Long> kept = new HashSet<>();
      Set<Long> everAccepted = new HashSet<>();
      int violations = 0;
      for (Delivery delivery : seen) {
        everAccepted.add(delivery.id());
        if (delivery.id() <= lastId) {
          continue; // the consumer drops it
        }
        lastId = delivery.id();
        kept.add(delivery.id());
        int seq = byId.get(delivery.id()).seq();
        if (seq < lastSeq) {
          violations++;
          report.example("order", "group " + group.getKey() + ": message " + delivery.id() + " (seq " + seq
              + ") arrived after seq " + lastSeq + " (ts " + delivery.ts() + ", batch " + delivery.batch() + ")");
        }
        lastSeq = Math.max(lastSeq, seq);
      }
      for (Ledger.Entry entry : group.getValue()) {
        if (everAccepted.contains(entry.id()) && !kept.contains(entry.id())) {
          violations++;
          report.example("order", "group " + group.getKey() + ": message " + entry.id() + " (seq " + entry.seq()
              + ") first arrived after a later message of its group, so an id-filtering consumer drops it");
        }
      }
      if (violations > 0) {
        report.orderGroups++;
        report.orderIds += violations;
      }
    }
  }

  /**
   * A repeat is allowed only as whole-batch redelivery after a fault: in its batch, the repeated
   * messages of a group come first and in order (the unconfirmed remainder of an earlier batch), and
   * a fault hit the earlier delivery's worker (or, for broker arrivals, anything) in between.
   */
  private static void checkDuplicates(List<Delivery> accepted, List<Event> events, Map<Long, List<Delivery>> byId,
      Report report) {
    // Within each batch and group: the deliveries in order.
    Map<String, List<Delivery>> runs = new HashMap<>();
    for (Delivery delivery : accepted) {
      runs.computeIfAbsent(delivery.batch() + "\u0000" + delivery.group(), key -> new ArrayList<>()).add(delivery);
    }
    Set<Long> seenBefore = new HashSet<>();
    Map<Long, Boolean> isRepeat = new HashMap<>();
    for (Delivery delivery : accepted) {
      isRepeat.put(delivery.ts(), !seenBefore.add(delivery.id()));
    }
    for (List<Delivery> deliveries : byId.values()) {
      for (int i = 1; i < deliveries.size(); i++) {
        Delivery earlier = deliveries.get(i - 1);
        Delivery repeat = deliveries.get(i);
        report.duplicates++;
        boolean batchesKnown = repeat.token() > 0 || !repeat.worker().equals("consumer");
        boolean shaped = true;
        if (batchesKnown) {
          List<Delivery> run = runs.get(repeat.batch() + "\u0000" + repeat.group());
          long lastId = Long.MIN_VALUE;
          for (Delivery previous : run) {
            if (previous.ts() == repeat.ts()) {
              break;
            }
            if (!isRepeat.get(previous.ts()) || previous.id() >= repeat.id()) {
              shaped = false;
            }
            lastId = previous.id();
          }
          shaped &= lastId < repeat.id();
        }
        boolean attributed = false;
        for (Event event : events) {
          // A fault from shortly before the earlier batch reached the relay (its claim and read) up to
          // the repeat can have undone that batch.
          // Broker arrivals name no worker, so a fault of any worker counts; their batchStartMs is the send time.
          boolean brokerArrival = earlier.worker().equals("consumer");
          boolean afterStart;
          if (brokerArrival) {
            afterStart = earlier.batchStartMs() > 0 ? event.atMs() >= earlier.batchStartMs() - CLAIM_GRACE_MS
                : event.ts() > earlier.ts();
          } else {
            afterStart = batchesKnown && earlier.batchStartMs() > 0
                ? event.ts() > earlier.batchStart() || event.atMs() >= earlier.batchStartMs() - CLAIM_GRACE_MS
                : event.ts() > earlier.ts();
          }
          if (afterStart && event.ts() < repeat.ts()
              && (brokerArrival || earlier.worker().equals(event.target()) || "*".equals(event.target()))) {
            attributed = true;
            break;
          }
        }
        if (!shaped) {
          report.duplicatesNotWholeBatch++;
          report.example("duplicate", "message " + repeat.id() + " (group " + repeat.group() + ") accepted again in batch "
              + repeat.batch() + " (ts " + repeat.ts() + ") after later messages of its group in that batch; first in "
              + earlier.batch() + " (ts " + earlier.ts() + ")");
        } else if (!attributed) {
          report.duplicatesUnattributed++;
          report.example("duplicate", "message " + repeat.id() + " accepted in " + earlier.batch() + " (ts "
              + earlier.ts() + ") and again in " + repeat.batch() + " (ts " + repeat.ts() + ") with no fault of "
              + earlier.worker() + " in between");
        } else {
          report.duplicatesAfterFault++;
        }
      }
    }
  }

  /**
   * Two batches of one partition whose accepted deliveries interleave: two writers were active at
   * once. Broker arrivals are compared within one lane, the part of their batch id after {@value
   * #LANE}: a Kafka consumer reads the topic's partitions in no order relative to each other, so two
   * batches sent one after the other can arrive interleaved across Kafka partitions, never within one.
   */
  private static void checkOverlap(List<Delivery> accepted, Report report) {
    record Span(String batch, int partition, long token, long first, long last) {}
    Map<String, long[]> spans = new LinkedHashMap<>();
    Map<String, Delivery> firstOf = new HashMap<>();
    for (Delivery delivery : accepted) {
      if (delivery.worker().equals("consumer") && delivery.token() == 0) {
        continue; // a broker arrival without a token: its batch is unknown
      }
      String key = delivery.partition() + "\u0000" + delivery.batch();
      spans.computeIfAbsent(key, k -> new long[] {delivery.ts(), delivery.ts()})[1] = delivery.ts();
      firstOf.putIfAbsent(key, delivery);
    }
    Map<String, List<Span>> byPartition = new TreeMap<>();
    spans.forEach((key, span) -> {
      Delivery first = firstOf.get(key);
      int lane = first.batch().indexOf(LANE);
      byPartition.computeIfAbsent(first.partition() + (lane < 0 ? "" : first.batch().substring(lane)),
              p -> new ArrayList<>())
          .add(new Span(first.batch(), first.partition(), first.token(), span[0], span[1]));
    });
    for (List<Span> partition : byPartition.values()) {
      partition.sort(Comparator.comparingLong(Span::first));
      Span widest = null;
      for (Span span : partition) {
        if (widest != null && span.first() < widest.last()) {
          report.overlaps++;
          if (span.token() == widest.token()) {
            report.overlapsSameToken++;
          }
          report.example("overlap", "partition " + span.partition() + ": batch " + span.batch() + " (token "
              + span.token() + ", ts " + span.first() + "-" + span.last() + ") was accepted while batch "
              + widest.batch() + " (token " + widest.token() + ", ts " + widest.first() + "-" + widest.last()
              + ") was still being accepted");
        }
        if (widest == null || span.last() > widest.last()) {
          widest = span;
        }
      }
    }
  }
}
