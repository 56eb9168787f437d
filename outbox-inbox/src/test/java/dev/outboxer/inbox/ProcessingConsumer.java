package dev.outboxer.inbox;

import dev.outboxer.testing.OutboxTestContainer;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The consumer of the end-to-end tests, as an application writes it: one JTA transaction per
 * received message, in which the injected {@link Inbox} decides and the processing writes a row
 * (into {@code test_order}, keyed by the outbox id: processing a message twice would fail on the
 * primary key). What it processed is recorded once the transaction committed.
 */
final class ProcessingConsumer {

  private final OutboxTestContainer container;
  private final Inbox inbox;
  private final List<InboxMessage> processed = new ArrayList<>();
  private int received;
  private int dropped;

  ProcessingConsumer(OutboxTestContainer container) {
    this.container = container;
    this.inbox = container.select(Inbox.class);
  }

  /** Runs the inbox and, if it accepts, the processing, in a transaction of its own. */
  void onMessage(InboxMessage message) throws Exception {
    received++;
    container.inTransaction(() -> {
      if (!inbox.accept(message)) {
        dropped++;
        return;
      }
      try (Connection connection = container.dataSource().getConnection();
          PreparedStatement insert =
              connection.prepareStatement("INSERT INTO test_order (id, description) VALUES (?, ?)")) {
        insert.setLong(1, message.id());
        insert.setString(2, String.valueOf(message.groupKey()));
        insert.executeUpdate();
      }
      container.transactionManager().getTransaction().registerSynchronization(new Synchronization() {
        @Override
        public void beforeCompletion() {}

        @Override
        public void afterCompletion(int status) {
          if (status == Status.STATUS_COMMITTED) {
            processed.add(message);
          }
        }
      });
    });
  }

  /** How many of these ids the processing wrote to the database (committed). */
  static int rowsWritten(OutboxTestContainer container, List<Long> ids) throws java.sql.SQLException {
    String in = ids.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(","));
    try (Connection connection = container.dataSource().getConnection();
        java.sql.Statement statement = connection.createStatement();
        java.sql.ResultSet row = statement.executeQuery("SELECT COUNT(*) FROM test_order WHERE id IN (" + in + ")")) {
      row.next();
      return row.getInt(1);
    }
  }

  List<InboxMessage> processed() {
    return processed;
  }

  List<Long> processedIds() {
    return processed.stream().map(InboxMessage::id).toList();
  }

  /** The ids processed per group key, in processing order. */
  Map<String, List<Long>> processedByGroup() {
    Map<String, List<Long>> byGroup = new LinkedHashMap<>();
    for (InboxMessage message : processed) {
      if (message.grouped()) {
        byGroup.computeIfAbsent(message.groupKey(), key -> new ArrayList<>()).add(message.id());
      }
    }
    return byGroup;
  }

  int received() {
    return received;
  }

  int dropped() {
    return dropped;
  }
}
