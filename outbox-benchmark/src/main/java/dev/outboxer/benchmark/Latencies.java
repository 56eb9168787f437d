package dev.outboxer.benchmark;

import java.util.List;

/**
 * Latency samples in milliseconds, from just before the publishing commit to the relay (or task).
 *
 * @param local published and relayed on one node
 * @param remote published on one node, relayed by another
 * @param plainLocal as {@code local}, with a relay that does not use the worker's transaction
 *     (Outboxer only: its batches then run in plain database transactions); empty for the others
 */
record Latencies(List<Double> local, List<Double> remote, List<Double> plainLocal) {

  Latencies {
    local = List.copyOf(local);
    remote = List.copyOf(remote);
    plainLocal = List.copyOf(plainLocal);
  }
}
