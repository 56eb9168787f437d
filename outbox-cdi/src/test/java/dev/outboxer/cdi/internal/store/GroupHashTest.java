package dev.outboxer.cdi.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GroupHashTest {

  @Test
  void the_partition_key_of_a_group_never_changes_between_releases() {
    // Pinned values: a change here would move the pending messages of live outboxes to other partitions.
    assertThat(GroupHash.partitionKey("order:42")).isEqualTo(GroupHash.partitionKey("order:42")).isNotNegative();
    assertThat(GroupHash.partitionKey("order:42")).isEqualTo((int) (GroupHash.hash64("order:42") >>> 33));
    assertThat(GroupHash.lockKey("orders", "order:42")).isEqualTo(5889136991061252312L);
  }

  @Test
  void similar_keys_spread_evenly_across_partitions() {
    Map<Integer, Integer> counts = new HashMap<>();
    for (int i = 0; i < 16_000; i++) {
      counts.merge(GroupHash.partition(GroupHash.partitionKey("order:" + i), 16), 1, Integer::sum);
    }
    assertThat(counts).hasSize(16);
    assertThat(counts.values()).allSatisfy(count -> assertThat(count).isBetween(850, 1150));
  }

  @Test
  void ungrouped_messages_spread_across_partitions() {
    Map<Integer, Integer> counts = new HashMap<>();
    for (int i = 0; i < 16_000; i++) {
      counts.merge(GroupHash.partition(GroupHash.partitionKeyOfUngrouped(), 8), 1, Integer::sum);
    }
    assertThat(counts).hasSize(8);
    assertThat(counts.values()).allSatisfy(count -> assertThat(count).isBetween(1700, 2300));
  }

  @Test
  void the_database_computes_the_same_partition_as_java() {
    // MOD(partition_key, n) in SQL on a non-negative key equals Java's %.
    for (String key : new String[] {"order:1", "a", "a ", "A", "\uD83D\uDE00"}) {
      int partitionKey = GroupHash.partitionKey(key);
      assertThat(partitionKey).isNotNegative();
      assertThat(GroupHash.partition(partitionKey, 7)).isEqualTo(Math.floorMod(partitionKey, 7));
    }
  }

  @Test
  void equal_keys_of_different_outboxes_take_different_locks() {
    assertThat(GroupHash.lockKey("orders", "k")).isNotEqualTo(GroupHash.lockKey("audit", "k"));
  }
}
