package dev.outboxer.cdi.internal.work;

import dev.outboxer.Ordering;
import dev.outboxer.cdi.internal.store.BatchStatements.Read;
import dev.outboxer.cdi.internal.store.BatchStatements.StoredMessage;
import dev.outboxer.cdi.internal.store.BatchStatements.Waiting;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Which of the rows a read returned go to the relay, by the ordering rules: a message waiting for
 * its retry holds back the later messages of its group (every later message in {@code total}
 * ordering, nothing in {@code none}); everything else goes, in id order, up to the batch size.
 *
 * @param selected the rows to hand to the relay, in id order
 * @param reachedUpTo every row up to this id is accounted for ({@code Long.MAX_VALUE}: the read
 *     reached the end of the partition's visible rows); rows above it were cut off by the batch size
 */
record RelaySelection(List<StoredMessage> selected, long reachedUpTo) {

  /**
   * The message to rewind the cursor to before planning: the lowest waiting message that is due,
   * lies below the read's start and holds back a group (any message in total ordering). The rest of
   * its group lies between it and the start and has to be read again, in order, before anything
   * later of that group.
   */
  static OptionalLong rewindTarget(Ordering ordering, List<Waiting> waiting, long scanFrom, LocalDateTime now) {
    long lowest = Long.MAX_VALUE;
    for (Waiting row : waiting) {
      boolean holdsBack = ordering == Ordering.TOTAL || ordering == Ordering.GROUP && row.groupKey() != null;
      if (holdsBack && row.id() < scanFrom && !row.nextAttemptAt().isAfter(now)) {
        lowest = Math.min(lowest, row.id());
      }
    }
    return lowest == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(lowest);
  }

  static RelaySelection of(Ordering ordering, Read read, int limit, int batchSize, LocalDateTime now) {
    Map<String, Long> blockedGroups = new HashMap<>();
    long blockedFrom = Long.MAX_VALUE;
    for (Waiting row : read.waiting()) {
      if (row.nextAttemptAt().isAfter(now)) {
        if (ordering == Ordering.TOTAL) {
          blockedFrom = Math.min(blockedFrom, row.id());
        } else if (ordering == Ordering.GROUP && row.groupKey() != null) {
          blockedGroups.merge(row.groupKey(), row.id(), Math::min);
        }
      }
    }
    List<StoredMessage> selected = new ArrayList<>();
    long reachedUpTo = Math.min(read.scanned() < limit ? Long.MAX_VALUE : read.lastScannedId(), read.dueCutOffAt());
    for (StoredMessage row : read.rows()) {
      if (row.id() > read.dueCutOffAt()) {
        break; // a due row above the cut was not read: a later row of its group must not pass it
      }
      if (row.nextAttemptAt() != null && row.nextAttemptAt().isAfter(now)) {
        continue; // waits for its retry: it is a blocker, read through its own index
      }
      if (row.id() > blockedFrom) {
        continue;
      }
      Long blocker = row.groupKey() == null ? null : blockedGroups.get(row.groupKey());
      if (blocker != null && blocker < row.id()) {
        continue;
      }
      if (selected.size() == batchSize) {
        reachedUpTo = Math.min(reachedUpTo, row.id() - 1);
        break;
      }
      selected.add(row);
    }
    return new RelaySelection(List.copyOf(selected), reachedUpTo);
  }
}
