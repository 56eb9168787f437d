package dev.outboxer.rabbitmq;

import dev.outboxer.spi.OutboxRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The records of one wave published on one confirm-mode channel, and what the broker said about
 * each: acked, acked after returning it (unroutable), nacked, or lost with the channel. Callbacks
 * arrive on the connection's I/O thread; the worker thread waits in {@link #awaitOutcomes} and then
 * reads the outcomes. Thread-safe (every method synchronizes on the wave).
 */
final class PublishedWave {

  /** What the broker said about one record: {@code null} cause for a confirmation. */
  record Outcome(OutboxRecord record, Throwable failure) {
    boolean confirmed() {
      return failure == null;
    }
  }

  private final NavigableMap<Long, OutboxRecord> awaitingConfirm = new TreeMap<>();
  private final Map<String, OutboxRecord> byMessageId = new HashMap<>();
  private final Map<OutboxRecord, Throwable> returned = new HashMap<>();
  private final Map<OutboxRecord, Outcome> outcomes = new LinkedHashMap<>();
  private final String describeDestination;
  private Throwable channelLost;

  PublishedWave(String describeDestination) {
    this.describeDestination = describeDestination;
  }

  /** Registered before the record is published, so that its confirm cannot arrive first. */
  synchronized void expect(long sequenceNumber, OutboxRecord record) {
    awaitingConfirm.put(sequenceNumber, record);
    byMessageId.put(Long.toString(record.id()), record);
  }

  /** The record was registered but its publish failed on the client: the broker never numbered it. */
  synchronized void notSent(long sequenceNumber, Throwable cause) {
    OutboxRecord record = awaitingConfirm.remove(sequenceNumber);
    if (record != null) {
      outcomes.put(record, new Outcome(record, cause));
    }
    notifyAll();
  }

  synchronized void acked(long deliveryTag, boolean multiple) {
    for (OutboxRecord record : settle(deliveryTag, multiple)) {
      Throwable returnedBecause = returned.get(record);
      outcomes.put(record, new Outcome(record, returnedBecause));
    }
    notifyAll();
  }

  synchronized void nacked(long deliveryTag, boolean multiple) {
    for (OutboxRecord record : settle(deliveryTag, multiple)) {
      outcomes.put(record, new Outcome(record, new RabbitRelayException(describe(record) + " was refused"
          + " (nack) by " + describeDestination + ": the broker could not take responsibility for it (a queue"
          + " with overflow=reject-publish that is full, or an internal error); it is sent again")));
    }
    notifyAll();
  }

  /** RabbitMQ sends basic.return before the basic.ack of the same message: the ack then fails it. */
  synchronized void returned(String messageId, int replyCode, String replyText, String routingKey) {
    OutboxRecord record = byMessageId.get(messageId);
    if (record != null) {
      returned.put(record, new RabbitRelayException(describe(record) + " was returned as unroutable by "
          + describeDestination + " with routing key '" + routingKey + "': " + replyCode + " " + replyText
          + "; no queue is bound for it. Bind a queue, or fix the routing key; it is sent again"));
    }
  }

  /** The channel closed: every record still awaiting its confirm fails with the reason. */
  synchronized void channelClosed(Throwable cause) {
    channelLost = cause;
    for (OutboxRecord record : new ArrayList<>(awaitingConfirm.values())) {
      outcomes.put(record, new Outcome(record, new RabbitRelayException(describe(record) + " was not"
          + " confirmed by " + describeDestination + ": the channel closed (" + RabbitRelay.describeCause(cause)
          + "); it is sent again", cause)));
    }
    awaitingConfirm.clear();
    notifyAll();
  }

  /**
   * Waits until every published record has an outcome, or until {@code deadlineNanos} ({@link
   * System#nanoTime()}). Records still unconfirmed then fail with a timeout.
   *
   * @return whether every record had an outcome in time
   */
  synchronized boolean awaitOutcomes(long deadlineNanos, String timeoutRule) throws InterruptedException {
    while (!awaitingConfirm.isEmpty()) {
      long left = deadlineNanos - System.nanoTime();
      if (left <= 0) {
        for (OutboxRecord record : awaitingConfirm.values()) {
          outcomes.put(record, new Outcome(record, new RabbitRelayException(describe(record) + " was not"
              + " confirmed by " + describeDestination + " within " + timeoutRule + "; it is sent again")));
        }
        awaitingConfirm.clear();
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    return true;
  }

  /** The outcomes, in the order they were published (every published record has one after the wait). */
  synchronized List<Outcome> outcomes(List<OutboxRecord> published) {
    List<Outcome> inOrder = new ArrayList<>(published.size());
    for (OutboxRecord record : published) {
      Outcome outcome = outcomes.get(record);
      if (outcome != null) {
        inOrder.add(outcome);
      }
    }
    return inOrder;
  }

  /** Why the channel closed while this wave was out, or {@code null}. */
  synchronized Throwable channelLost() {
    return channelLost;
  }

  private List<OutboxRecord> settle(long deliveryTag, boolean multiple) {
    List<OutboxRecord> settled = new ArrayList<>();
    if (multiple) {
      NavigableMap<Long, OutboxRecord> head = awaitingConfirm.headMap(deliveryTag, true);
      settled.addAll(head.values());
      head.clear();
    } else {
      OutboxRecord record = awaitingConfirm.remove(deliveryTag);
      if (record != null) {
        settled.add(record);
      }
    }
    return settled;
  }

  private static String describe(OutboxRecord record) {
    return "Outbox '" + record.outbox() + "' message " + record.id() + " (type " + record.type() + ")";
  }
}
