package dev.outboxer.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The probe is what makes every benchmark run a correctness check too: it must see what goes wrong. */
class DrainProbeTest {

  @Test
  void a_clean_drain_has_no_problems_and_counts_every_message() throws Exception {
    DrainProbe probe = new DrainProbe(100, 4, true);
    probe.handed();
    probe.committed(new long[] {100, 101}, new String[] {"a", "b"});
    probe.committed(new long[] {102, 103}, new String[] {"a", "b"});

    assertThat(probe.problems()).isEmpty();
    assertThat(probe.committed()).isEqualTo(4);
    assertThat(probe.await(4, Duration.ofMillis(1))).isTrue();
  }

  @Test
  void a_message_committed_twice_is_a_problem_and_counts_once() {
    DrainProbe probe = new DrainProbe(0, 10, false);
    probe.committed(new long[] {3}, new String[] {"a"});
    probe.committed(new long[] {3}, new String[] {"a"});

    assertThat(probe.problems()).containsExactly("message 3 committed twice");
    assertThat(probe.committed()).isEqualTo(1);
  }

  @Test
  void a_group_out_of_order_is_a_problem_where_order_is_promised() {
    DrainProbe ordered = new DrainProbe(0, 10, true);
    ordered.committed(new long[] {5, 2}, new String[] {"a", "a"});
    DrainProbe unordered = new DrainProbe(0, 10, false);
    unordered.committed(new long[] {5, 2}, new String[] {"a", "a"});

    assertThat(ordered.problems()).containsExactly("group a: message 2 committed after 5");
    assertThat(unordered.problems()).isEmpty();
  }

  @Test
  void a_message_from_outside_the_backlog_is_a_problem() {
    DrainProbe probe = new DrainProbe(10, 5, true);
    probe.committed(new long[] {15}, new String[] {"a"});

    assertThat(probe.problems()).containsExactly("message 15 was not part of this backlog [10, 15)");
    assertThat(probe.committed()).isZero();
  }

  @Test
  void waiting_for_more_than_committed_gives_up_after_the_limit() throws Exception {
    DrainProbe probe = new DrainProbe(0, 10, true);
    probe.committed(new long[] {0}, new String[] {"a"});

    assertThat(probe.await(2, Duration.ofMillis(20))).isFalse();
  }
}
