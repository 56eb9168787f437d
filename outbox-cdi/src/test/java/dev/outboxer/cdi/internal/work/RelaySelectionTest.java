package dev.outboxer.cdi.internal.work;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Ordering;
import dev.outboxer.cdi.internal.store.BatchStatements.Read;
import dev.outboxer.cdi.internal.store.BatchStatements.StoredMessage;
import dev.outboxer.cdi.internal.store.BatchStatements.Waiting;
import java.time.LocalDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which rows of a read go to the relay, and when the cursor has to be rewound first. */
class RelaySelectionTest {

  private static final LocalDateTime NOW = LocalDateTime.of(2026, 3, 29, 1, 30);

  private static StoredMessage row(long id, String group) {
    return new StoredMessage(id, group, "T", "application/json", new byte[0], null, 0, null, NOW.minusHours(1));
  }

  private static StoredMessage retry(long id, String group, LocalDateTime next) {
    return new StoredMessage(id, group, "T", "application/json", new byte[0], null, 1, next, NOW.minusHours(1));
  }

  @Test
  void a_waiting_message_holds_back_only_the_later_messages_of_its_group() {
    Waiting blocker = new Waiting(5, "a", NOW.plusMinutes(1));
    Read read = new Read(List.of(retry(5, "a", NOW.plusMinutes(1)), row(6, "a"), row(7, "b"), row(8, null)), 4, 8,
        List.of(blocker), 0, 0, Long.MAX_VALUE);
    RelaySelection plan = RelaySelection.of(Ordering.GROUP, read, 100, 100, NOW);
    assertThat(plan.selected()).extracting(StoredMessage::id).containsExactly(7L, 8L);
    assertThat(plan.reachedUpTo()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void in_total_ordering_a_waiting_message_holds_back_everything_after_it() {
    Read read = new Read(List.of(row(4, "z"), retry(5, "a", NOW.plusMinutes(1)), row(6, "b"), row(7, null)), 4, 7,
        List.of(new Waiting(5, "a", NOW.plusMinutes(1))), 0, 0, Long.MAX_VALUE);
    assertThat(RelaySelection.of(Ordering.TOTAL, read, 100, 100, NOW).selected()).extracting(StoredMessage::id)
        .containsExactly(4L);
    assertThat(RelaySelection.of(Ordering.NONE, read, 100, 100, NOW).selected()).extracting(StoredMessage::id)
        .containsExactly(4L, 6L, 7L);
  }

  @Test
  void a_due_retry_below_the_cursor_asks_for_a_rewind_when_it_holds_back_a_group() {
    List<Waiting> waiting = List.of(new Waiting(40, "a", NOW.minusSeconds(1)), new Waiting(30, null, NOW.minusSeconds(1)),
        new Waiting(20, "b", NOW.plusMinutes(5)));
    assertThat(RelaySelection.rewindTarget(Ordering.GROUP, waiting, 100, NOW)).hasValue(40);
    assertThat(RelaySelection.rewindTarget(Ordering.TOTAL, waiting, 100, NOW)).hasValue(30);
    assertThat(RelaySelection.rewindTarget(Ordering.NONE, waiting, 100, NOW)).isEmpty();
    assertThat(RelaySelection.rewindTarget(Ordering.GROUP, waiting, 35, NOW)).as("already in the scan").isEmpty();
  }

  @Test
  void the_batch_size_cuts_the_plan_and_what_was_not_taken_is_not_passed() {
    Read read = new Read(List.of(row(1, "a"), row(2, "b"), row(3, "c"), row(4, "d")), 4, 4, List.of(), 0, 0, Long.MAX_VALUE);
    RelaySelection plan = RelaySelection.of(Ordering.GROUP, read, 4, 2, NOW);
    assertThat(plan.selected()).extracting(StoredMessage::id).containsExactly(1L, 2L);
    assertThat(plan.reachedUpTo()).isEqualTo(2);
  }

  @Test
  void a_full_read_reaches_only_its_last_row() {
    Read read = new Read(List.of(row(1, "a"), row(2, "b")), 2, 2, List.of(), 0, 0, Long.MAX_VALUE);
    assertThat(RelaySelection.of(Ordering.GROUP, read, 2, 100, NOW).reachedUpTo()).isEqualTo(2);
  }

  @Test
  void nothing_above_the_due_rows_a_read_cut_off_is_selected_whatever_its_group() {
    // Due rows 2 and 4 were read, more were due (say 9 of group "a"); the scan found 5 to 10.
    Read read = new Read(List.of(retry(2, "a", NOW.minusMinutes(1)), retry(4, "b", NOW.minusMinutes(1)), row(5, "c"),
        row(10, "a")), 2, 10, List.of(new Waiting(2, "a", NOW.minusMinutes(1)), new Waiting(4, "b",
        NOW.minusMinutes(1)), new Waiting(9, "a", NOW.minusMinutes(1))), 0, 0, 4);
    RelaySelection plan = RelaySelection.of(Ordering.GROUP, read, 100, 100, NOW);
    assertThat(plan.selected()).extracting(StoredMessage::id).containsExactly(2L, 4L);
    assertThat(plan.reachedUpTo()).isEqualTo(4);
  }
}
