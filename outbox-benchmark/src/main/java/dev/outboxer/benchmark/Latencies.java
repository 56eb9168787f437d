package dev.outboxer.benchmark;

import java.util.List;

/**
 * Latency samples in milliseconds, from just before the publishing commit to the relay (or task).
 *
 * @param local published and relayed on one node
 * @param remote published on one node, relayed by another
 */
record Latencies(List<Double> local, List<Double> remote) {

  Latencies {
    local = List.copyOf(local);
    remote = List.copyOf(remote);
  }
}
