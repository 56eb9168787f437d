package dev.outboxer.cdi.internal.store;

import java.nio.charset.StandardCharsets;

/**
 * Stable hashes of group keys: the same key maps to the same partition and lock on every node, JVM
 * and release. FNV-1a over the UTF-8 bytes with a final avalanche mix, so that keys differing in
 * their last character ({@code order:41}, {@code order:42}) still spread across partitions.
 */
public final class GroupHash {

  private static final long FNV_OFFSET = 0xcbf29ce484222325L;
  private static final long FNV_PRIME = 0x100000001b3L;

  private GroupHash() {}

  public static long hash64(String text) {
    long hash = FNV_OFFSET;
    for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
      hash ^= (b & 0xff);
      hash *= FNV_PRIME;
    }
    return mix(hash);
  }

  /** MurmurHash3's fmix64 finaliser. */
  private static long mix(long value) {
    long hash = value;
    hash ^= hash >>> 33;
    hash *= 0xff51afd7ed558ccdL;
    hash ^= hash >>> 33;
    hash *= 0xc4ceb9fe1a85ec53L;
    hash ^= hash >>> 33;
    return hash;
  }

  /** The partition of a group key among {@code partitions}. */
  public static int partition(String groupKey, int partitions) {
    return (int) Math.floorMod(hash64(groupKey), (long) partitions);
  }

  /**
   * The partition of a message without group key: spread by a hash of its id, which is repeatable;
   * the id itself would follow publishing patterns (one keyed and one unkeyed message per
   * transaction puts all unkeyed ones on odd ids).
   */
  public static int partitionOfUngrouped(long id, int partitions) {
    return (int) Math.floorMod(mix(id), (long) partitions);
  }

  /** The advisory lock key of a group: outbox and key together, so equal keys of different outboxes do not contend. */
  public static long lockKey(String outbox, String groupKey) {
    return hash64(outbox + '\u0000' + groupKey);
  }

  /** The lock-row slot of a group, for databases without advisory locks. */
  public static int lockSlot(String groupKey) {
    return (int) Math.floorMod(hash64(groupKey), (long) OutboxGroupLockEntity.SLOTS);
  }
}
