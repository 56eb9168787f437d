package dev.outboxer.cdi.internal.store;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ThreadLocalRandom;

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

  /**
   * The partition key stored with a message of this group: 31 non-negative bits of the group's
   * hash. The partition is {@code partitionKey % partitions}, computed by the database from the
   * partition count in force, so that every publisher uses the cluster's count and a change of the
   * count re-homes rows with one statement.
   */
  public static int partitionKey(String groupKey) {
    return (int) (hash64(groupKey) >>> 33);
  }

  /**
   * The partition key of a message without group key: any spread will do (such a message neither
   * blocks nor is blocked), so a random one, which needs no id before the insert.
   */
  public static int partitionKeyOfUngrouped() {
    return ThreadLocalRandom.current().nextInt(Integer.MAX_VALUE);
  }

  /** The partition of a partition key among {@code partitions}: what the database computes. */
  public static int partition(int partitionKey, int partitions) {
    return partitionKey % partitions;
  }

  /**
   * The advisory lock key of a group: outbox and key together, so equal keys of different outboxes
   * do not contend. 64 bits: two groups share a lock with a chance of about one in 2^64, and
   * sharing one only makes them wait for each other, never reorders them.
   */
  public static long lockKey(String outbox, String groupKey) {
    return hash64(outbox + '\u0000' + groupKey);
  }
}
