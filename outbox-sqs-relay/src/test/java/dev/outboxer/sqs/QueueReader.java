package dev.outboxer.sqs;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.DeleteMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;
import software.amazon.awssdk.services.sqs.model.MessageSystemAttributeName;

/**
 * A real consumer of one queue: every {@link #poll()} receives what is there (attributes
 * included), deletes it and appends it to {@link #received()} in receive order, which on a FIFO
 * queue is the queue's order per message group. Not thread-safe: poll from the test thread.
 *
 * <p>Public for other modules' tests, through this module's test-jar; not part of any API.
 */
public final class QueueReader {

  /** A received message: its body, attributes and, on FIFO queues, group and deduplication id. */
  public record Received(String body, Map<String, String> attributes, Map<String, String> dataTypes,
      String groupId, String deduplicationId) {

    long outboxId() {
      return Long.parseLong(attributes.get(dev.outboxer.spi.StandardHeaders.ID));
    }

    public String groupKey() {
      return attributes.get(dev.outboxer.spi.StandardHeaders.GROUP_KEY);
    }
  }

  private final SqsClient client;
  private final String queueUrl;
  private final List<Received> received = new ArrayList<>();

  public QueueReader(SqsClient client, String queueUrl) {
    this.client = client;
    this.queueUrl = queueUrl;
  }

  /** Receives until the queue answers empty; returns how many were received in all. */
  public int poll() {
    while (true) {
      List<Message> messages = client.receiveMessage(request -> request.queueUrl(queueUrl)
          .maxNumberOfMessages(10)
          .waitTimeSeconds(0)
          .messageAttributeNames("All")
          .messageSystemAttributeNames(MessageSystemAttributeName.ALL)).messages();
      if (messages.isEmpty()) {
        return received.size();
      }
      for (Message message : messages) {
        Map<String, String> attributes = new HashMap<>();
        Map<String, String> types = new HashMap<>();
        for (Map.Entry<String, MessageAttributeValue> attribute
            : message.messageAttributes().entrySet()) {
          attributes.put(attribute.getKey(), attribute.getValue().stringValue());
          types.put(attribute.getKey(), attribute.getValue().dataType());
        }
        received.add(new Received(message.body(), attributes, types,
            message.attributes().get(MessageSystemAttributeName.MESSAGE_GROUP_ID),
            message.attributes().get(MessageSystemAttributeName.MESSAGE_DEDUPLICATION_ID)));
      }
      List<DeleteMessageBatchRequestEntry> deletes = new ArrayList<>();
      for (int i = 0; i < messages.size(); i++) {
        deletes.add(DeleteMessageBatchRequestEntry.builder().id(String.valueOf(i))
            .receiptHandle(messages.get(i).receiptHandle()).build());
      }
      client.deleteMessageBatch(request -> request.queueUrl(queueUrl).entries(deletes));
    }
  }

  public List<Received> received() {
    return List.copyOf(received);
  }

  Set<Long> ids() {
    return received.stream().map(Received::outboxId).collect(Collectors.toSet());
  }

  /** The ids received per group key, in receive order (messages without key left out). */
  Map<String, List<Long>> idsByGroupKey() {
    Map<String, List<Long>> byKey = new HashMap<>();
    for (Received message : received) {
      if (message.groupKey() != null) {
        byKey.computeIfAbsent(message.groupKey(), key -> new ArrayList<>())
            .add(message.outboxId());
      }
    }
    return byKey;
  }
}
