package com.example.shipping;

import dev.outboxer.inbox.Inbox;
import dev.outboxer.inbox.KafkaInboxMessage;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

public final class OrderEventsKafkaLoop {

  private final DataSource dataSource;
  private final Inbox inbox;

  public OrderEventsKafkaLoop(DataSource dataSource) {
    this.dataSource = dataSource;
    this.inbox = Inbox.builder(dataSource).build(); // checks the inbox tables
  }

  public void run(String bootstrapServers) throws SQLException {
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
            ConsumerConfig.GROUP_ID_CONFIG, "shipping",
            // Hides the records of batches the relay's Kafka transaction aborted.
            ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
            ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
            ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName()));
        Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      consumer.subscribe(List.of("outbox.orders"));
      while (!Thread.currentThread().isInterrupted()) {
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofSeconds(1))) {
          try {
            if (inbox.accept(connection, KafkaInboxMessage.from(record))) {
              orderPaid(connection, record.value());
            }
            connection.commit(); // the accept and the processing, together
          } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e; // restart from the last committed offset: the inbox drops what was done
          }
        }
        // After the database commit: a crash in between redelivers records the inbox then drops.
        consumer.commitSync();
      }
    }
  }

  private static void orderPaid(Connection connection, String json) throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement("INSERT INTO shipment (order_json) VALUES (?)")) {
      insert.setString(1, json);
      insert.executeUpdate();
    }
  }
}
