package dev.outboxer;

import java.time.Duration;
import java.time.Instant;

/**
 * The worker of one partition on this node, as {@link OutboxAdmin#workers()} reports it: whether it
 * runs, when it last did, what its last claim and failure were. In-memory state of this node only;
 * other nodes' workers are not listed.
 *
 * @param outbox the outbox
 * @param partition the partition
 * @param running whether a run is going on right now
 * @param sinceLastActivity how long ago the worker last finished a run (or, while running, started
 *     the current one)
 * @param lastRunEnded when the last run ended, or {@code null} before the first one
 * @param lastClaimed whether the last batch found the partition free (false: held by another node)
 * @param lastFencingToken the token of this node's last claim of the partition, 0 if none
 * @param lastFailure the last batch failure, or {@code null} if the last batch succeeded
 */
public record WorkerStatus(String outbox, int partition, boolean running, Duration sinceLastActivity,
    Instant lastRunEnded, boolean lastClaimed, long lastFencingToken, String lastFailure) {}
