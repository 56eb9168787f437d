package dev.outboxer.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;

/**
 * One confirm-mode channel, used by the batches of one partition (one at a time) and routing the
 * broker's confirms, returns and the channel's closing to the wave in flight. Confirms of an
 * earlier wave that come late (after its timeout) find no record in the current wave and are
 * dropped; the relay discards a channel after such a timeout anyway.
 */
final class PublishingChannel implements ConfirmListener, ReturnListener, ShutdownListener {

  private final Channel channel;
  private volatile PublishedWave current;

  private PublishingChannel(Channel channel) {
    this.channel = channel;
  }

  /**
   * Opens a channel and puts it in confirm mode.
   *
   * @throws IOException if the broker refuses (no channel left: {@code channel_max})
   */
  static PublishingChannel open(Connection connection) throws IOException {
    Channel channel = connection.createChannel();
    if (channel == null) {
      throw new IOException("the connection has no free channel left (channel_max " + connection.getChannelMax()
          + ")");
    }
    PublishingChannel publishing = new PublishingChannel(channel);
    channel.addConfirmListener(publishing);
    channel.addReturnListener(publishing);
    channel.addShutdownListener(publishing);
    channel.confirmSelect();
    return publishing;
  }

  boolean isOpen() {
    return channel.isOpen();
  }

  /** Makes {@code wave} the one that receives confirms, returns and the channel's closing. */
  void startWave(PublishedWave wave) {
    current = wave;
  }

  /**
   * Publishes one message of the current wave, registered with its sequence number first.
   *
   * @return the sequence number
   */
  long publish(dev.outboxer.spi.OutboxRecord record, String exchange, String routingKey, boolean mandatory,
      AMQP.BasicProperties properties, byte[] body) throws IOException {
    PublishedWave wave = current;
    long sequenceNumber = channel.getNextPublishSeqNo();
    wave.expect(sequenceNumber, record);
    try {
      channel.basicPublish(exchange, routingKey, mandatory, properties, body);
    } catch (IOException | RuntimeException e) {
      wave.notSent(sequenceNumber, e);
      throw e;
    }
    return sequenceNumber;
  }

  /** Closes the channel without waiting for the broker: nothing of it is needed any more. */
  void abort() {
    try {
      channel.abort();
    } catch (IOException | RuntimeException ignored) {
      // Closing a channel the broker already closed, or on a lost connection: nothing to release.
    }
  }

  @Override
  public void handleAck(long deliveryTag, boolean multiple) {
    PublishedWave wave = current;
    if (wave != null) {
      wave.acked(deliveryTag, multiple);
    }
  }

  @Override
  public void handleNack(long deliveryTag, boolean multiple) {
    PublishedWave wave = current;
    if (wave != null) {
      wave.nacked(deliveryTag, multiple);
    }
  }

  @Override
  public void handleReturn(int replyCode, String replyText, String exchange, String routingKey,
      AMQP.BasicProperties properties, byte[] body) {
    PublishedWave wave = current;
    if (wave != null && properties.getMessageId() != null) {
      wave.returned(properties.getMessageId(), replyCode, replyText, routingKey);
    }
  }

  @Override
  public void shutdownCompleted(ShutdownSignalException cause) {
    PublishedWave wave = current;
    if (wave != null) {
      wave.channelClosed(cause);
    }
  }
}
