package dev.outboxer.cdi.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GroupHashTest {

  @Test
  void the_partition_of_a_key_never_changes_between_releases() {
    // Pinned values: a change here would move the pending messages of live outboxes to other partitions.
    assertThat(GroupHash.partition("order:42", 16)).isEqualTo(14);
    assertThat(GroupHash.lockKey("orders", "order:42")).isEqualTo(5889136991061252312L);
  }

  @Test
  void similar_keys_spread_evenly_across_partitions() {
    Map<Integer, Integer> counts = new HashMap<>();
    for (int i = 0; i < 16_000; i++) {
      counts.merge(GroupHash.partition("order:" + i, 16), 1, Integer::sum);
    }
    assertThat(counts).hasSize(16);
    assertThat(counts.values()).allSatisfy(count -> assertThat(count).isBetween(850, 1150));
  }

  @Test
  void ungrouped_messages_spread_even_when_ids_follow_a_pattern() {
    Map<Integer, Integer> counts = new HashMap<>();
    for (long id = 2; id < 16_002; id += 2) {
      counts.merge(GroupHash.partitionOfUngrouped(id, 8), 1, Integer::sum);
    }
    assertThat(counts).hasSize(8);
    assertThat(counts.values()).allSatisfy(count -> assertThat(count).isBetween(850, 1150));
  }

  @Test
  void equal_keys_of_different_outboxes_take_different_locks() {
    assertThat(GroupHash.lockKey("orders", "k")).isNotEqualTo(GroupHash.lockKey("audit", "k"));
  }

}
