package dev.outboxer.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AuthenticationFailureException;
import com.rabbitmq.client.BlockedListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.ShutdownSignalException;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayBatch;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;

/**
 * The relay of one outbox: one connection, shared by the outbox's partition workers and opened
 * again after it was lost, and one confirm-mode channel per partition (a partition's batches come
 * one at a time, and a channel must not be shared by threads that publish).
 */
final class RabbitRelay implements Relay {

  /** Reports must reach the batch before its deadline: the relay stops waiting this much earlier. */
  private static final Duration REPORTING_MARGIN = Duration.ofMillis(100);

  private final RabbitSettings settings;
  private final RabbitMessageMapping mapping;
  private final RabbitMessageConstraints constraints;
  private final ConnectionFactory factory;
  private final Map<Integer, PublishingChannel> channels = new ConcurrentHashMap<>();
  private Connection connection; // guarded by this
  private volatile String blockedBecause;
  private volatile boolean closed;

  RabbitRelay(RabbitSettings settings) {
    this.settings = settings;
    this.mapping = new RabbitMessageMapping(settings);
    this.constraints = new RabbitMessageConstraints(settings.maxMessageSize());
    this.factory = new ConnectionFactory();
    factory.setHost(settings.host());
    factory.setPort(settings.port());
    factory.setVirtualHost(settings.virtualHost());
    factory.setUsername(settings.username());
    factory.setPassword(settings.password());
    // The relay opens the connection again itself at the next batch: the client's own recovery
    // would re-open channels behind the relay's back and renumber their confirms.
    factory.setAutomaticRecoveryEnabled(false);
    factory.setTopologyRecoveryEnabled(false);
    int confirmMillis = (int) Math.min(Integer.MAX_VALUE, settings.confirmTimeout().toMillis());
    // Opening a channel and confirm.select are RPCs: the client waits 10 minutes by default.
    factory.setChannelRpcTimeout(confirmMillis);
    factory.setShutdownTimeout(confirmMillis);
  }

  /*
   * Why waves: a channel delivers its messages to a queue in publish order, but the broker may
   * refuse one message (returned as unroutable, nacked) and still enqueue the next one of its
   * group, which would then overtake the refused one's retry. So, like the Kafka and SQS relays, a
   * wave holds at most one record per ordering unit, and wave k+1 is published only once the
   * broker confirmed (or refused) every record of wave k. A single-group batch costs one round
   * trip per record; records of different groups share round trips.
   */
  /**
   * {@code false}: the relay sends through its RabbitMQ channel (publisher confirms, no JTA) and touches no database, so its
   * batches run in plain database transactions where Outboxer has a data source.
   */
  @Override
  public boolean usesWorkerTransaction() {
    return false;
  }

  @Override
  public void relay(RelayBatch batch) throws InterruptedException {
    if (closed) {
      throw new RabbitRelayException("The rabbitmq relay of outbox '" + settings.outbox() + "' is closed"
          + " (Outboxer is shutting down); the batch is retried later");
    }
    PublishingChannel channel = channel(batch);
    for (List<OutboxRecord> wave : batch.waves()) {
      if (!batch.claimHeld() || timeLeft(batch).isNegative()) {
        return; // the claim lapsed, or the batch is over: what is unreported goes again
      }
      String blocked = blockedBecause;
      if (blocked != null) {
        throw new RabbitRelayException(settings.describeBroker() + " blocks publishers (" + blocked + "): a"
            + " memory or disk alarm. Outbox '" + settings.outbox() + "' sends nothing until it clears; the"
            + " batch is retried with backoff");
      }
      List<OutboxRecord> sendable = new ArrayList<>(wave.size());
      for (OutboxRecord record : wave) {
        if (batch.heldBack(record)) {
          continue; // an earlier record of its unit failed, or the claim lapsed
        }
        String problem = constraints.problem(record.type(), record.contentType(), record.payload().length,
            record.headers());
        if (problem != null) {
          batch.fail(record, new RabbitRelayException(describe(record) + " can never be sent to "
              + settings.describeExchange() + ": the message " + problem));
        } else {
          sendable.add(record);
        }
      }
      if (sendable.isEmpty()) {
        continue;
      }
      if (channel == null || !channel.isOpen()) {
        channel = channel(batch);
      }
      channel = publishWave(batch, channel, sendable);
    }
  }

  /**
   * Publishes one wave, waits for the broker's word on each record and reports it.
   *
   * @return the channel for the next wave, {@code null} if it was discarded
   */
  private PublishingChannel publishWave(RelayBatch batch, PublishingChannel channel, List<OutboxRecord> records)
      throws InterruptedException {
    PublishedWave wave = new PublishedWave(settings.describeExchange());
    channel.startWave(wave);
    List<OutboxRecord> published = new ArrayList<>(records.size());
    Exception publishFailure = null;
    for (OutboxRecord record : records) {
      if (!batch.claimHeld()) {
        break; // the next owner of the partition sends the rest
      }
      AMQP.BasicProperties properties = mapping.properties(record, batch.fencingToken());
      try {
        channel.publish(record, settings.exchange(), mapping.routingKey(record), settings.mandatory(), properties,
            record.payload());
        published.add(record);
      } catch (IOException | RuntimeException e) {
        published.add(record); // failed by the wave, with e
        publishFailure = e;
        break;
      }
    }
    Instant waitUntil = earliest(Instant.now().plus(settings.confirmTimeout()),
        batch.deadline().minus(REPORTING_MARGIN));
    long deadlineNanos = System.nanoTime() + Math.max(0, Duration.between(Instant.now(), waitUntil).toNanos());
    boolean intime = wave.awaitOutcomes(deadlineNanos, settings.fullKey(RabbitRelayProvider.CONFIRM_TIMEOUT)
        + " (" + dev.outboxer.spi.Setting.formatDuration(settings.confirmTimeout()) + ") or the batch deadline");
    for (PublishedWave.Outcome outcome : wave.outcomes(published)) {
      if (outcome.confirmed()) {
        batch.confirm(outcome.record());
      } else {
        batch.fail(outcome.record(), outcome.failure());
      }
    }
    Throwable lost = wave.channelLost();
    if (lost == null && publishFailure == null && intime) {
      return channel;
    }
    // Late confirms of this wave, or a channel the broker closed: the next wave takes a fresh one.
    discard(batch.partition(), channel);
    Throwable cause = lost != null ? lost : publishFailure;
    if (cause == null) {
      return null; // timed out: the next wave tries a fresh channel within what is left of the batch
    }
    if (cause instanceof ShutdownSignalException signal && !signal.isHardError()
        && signal.getReason() instanceof AMQP.Channel.Close close && close.getReplyCode() == AMQP.PRECONDITION_FAILED) {
      // One message the broker refused (larger than its max_message_size): the others may go.
      return null;
    }
    // A missing exchange, refused access, or a lost connection: the rest of the batch cannot go.
    throw new RabbitRelayException("Outbox '" + settings.outbox() + "' could not publish to "
        + settings.describeExchange() + (isMissingExchange(cause) ? ", which does not exist: declare it, or fix the"
        + " setting" : "") + "; the batch is retried with backoff: " + describeCause(cause), cause);
  }

  /** The partition's channel, opened (with the connection, if need be) when it has none. */
  private PublishingChannel channel(RelayBatch batch) {
    PublishingChannel channel = channels.get(batch.partition());
    if (channel != null && channel.isOpen()) {
      return channel;
    }
    Connection open = connection(batch);
    try {
      channel = PublishingChannel.open(open);
    } catch (IOException | RuntimeException e) {
      throw new RabbitRelayException("Outbox '" + settings.outbox() + "' could not open a channel to "
          + settings.describeBroker() + "; the batch is retried with backoff: " + describeCause(e), e);
    }
    channels.put(batch.partition(), channel);
    return channel;
  }

  private synchronized Connection connection(RelayBatch batch) {
    if (connection != null && connection.isOpen()) {
      return connection;
    }
    if (closed) {
      throw new RabbitRelayException("The rabbitmq relay of outbox '" + settings.outbox() + "' is closed");
    }
    if (connection != null) {
      connection.abort(0); // lost: release its threads before opening the next one
      connection = null;
    }
    Duration left = timeLeft(batch);
    Duration timeout = left.compareTo(settings.connectionTimeout()) < 0 ? left : settings.connectionTimeout();
    int timeoutMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
    factory.setConnectionTimeout(timeoutMillis);
    factory.setHandshakeTimeout(timeoutMillis);
    try {
      Connection opened = factory.newConnection(settings.connectionName());
      blockedBecause = null;
      opened.addBlockedListener(new BlockedListener() {
        @Override
        public void handleBlocked(String reason) {
          blockedBecause = reason;
        }

        @Override
        public void handleUnblocked() {
          blockedBecause = null;
        }
      });
      connection = opened;
      return opened;
    } catch (AuthenticationFailureException e) {
      throw new RabbitRelayException("Outbox '" + settings.outbox() + "' could not log in to "
          + settings.describeBroker() + " as '" + settings.username() + "': the user name or password ("
          + settings.fullKey(RabbitRelayProvider.USERNAME) + ", " + settings.fullKey(RabbitRelayProvider.PASSWORD)
          + ") was refused; the batch is retried with backoff: " + describeCause(e), e);
    } catch (IOException | TimeoutException | RuntimeException e) {
      throw new RabbitRelayException("Outbox '" + settings.outbox() + "' could not connect to "
          + settings.describeBroker() + " within " + dev.outboxer.spi.Setting.formatDuration(timeout)
          + "; the batch is retried with backoff: " + describeCause(e), e);
    }
  }

  private void discard(int partition, PublishingChannel channel) {
    channels.remove(partition, channel);
    channel.abort();
  }

  /** Closes every channel and the connection, without waiting for the broker. */
  @Override
  public void close() {
    closed = true;
    channels.values().forEach(PublishingChannel::abort);
    channels.clear();
    synchronized (this) {
      if (connection != null) {
        connection.abort((int) Math.min(Integer.MAX_VALUE, settings.connectionTimeout().toMillis()));
        connection = null;
      }
    }
  }

  @Override
  public String toString() {
    return "RabbitRelay[outbox=" + settings.outbox() + ", exchange=" + settings.exchange() + "]";
  }

  private static Duration timeLeft(RelayBatch batch) {
    return Duration.between(Instant.now(), batch.deadline());
  }

  private static Instant earliest(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }

  private static boolean isMissingExchange(Throwable cause) {
    return cause instanceof ShutdownSignalException signal && !signal.isHardError()
        && signal.getReason() instanceof AMQP.Channel.Close close && close.getReplyCode() == AMQP.NOT_FOUND;
  }

  /** The client's exception and its causes in one line: "Connection refused", the broker's reply text. */
  static String describeCause(Throwable e) {
    StringBuilder text = new StringBuilder();
    for (Throwable cause = e; cause != null && text.length() < 1000; cause = cause.getCause()) {
      String message = cause instanceof ShutdownSignalException signal && signal.getReason() != null
          ? describeReason(signal) : cause.getMessage();
      if (text.length() > 0) {
        text.append(": ");
      }
      text.append(cause.getClass().getSimpleName());
      if (message != null && !message.isBlank()) {
        text.append(" (").append(message).append(")");
      }
      if (cause.getCause() == cause) {
        break;
      }
    }
    return text.toString();
  }

  private static String describeReason(ShutdownSignalException signal) {
    if (signal.getReason() instanceof AMQP.Channel.Close close) {
      return "channel closed by the broker: " + close.getReplyCode() + " " + close.getReplyText();
    }
    if (signal.getReason() instanceof AMQP.Connection.Close close) {
      return "connection closed by the broker: " + close.getReplyCode() + " " + close.getReplyText();
    }
    return signal.getMessage();
  }

  private String describe(OutboxRecord record) {
    return "Outbox '" + settings.outbox() + "' message " + record.id() + " (type " + record.type() + ")";
  }
}
