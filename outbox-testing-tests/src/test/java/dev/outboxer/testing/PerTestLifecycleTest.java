package dev.outboxer.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An extension in an instance field: a new Outboxer per test, and after each test every row of its
 * outboxes is gone, while the rows of another outbox stay.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PerTestLifecycleTest {

  private static final JdbcTarget DATABASE = JdbcTarget.of("jdbc:h2:mem:testkit_per_test;DB_CLOSE_DELAY=-1", "sa", "");

  @RegisterExtension
  OutboxerExtension outboxer = OutboxerExtension.builder()
      .jdbcUrl(DATABASE.url(), DATABASE.user(), DATABASE.password())
      .config(OutboxerExtensionContractTest.OUTBOXES)
      .build();

  private static RecordingRelay firstTestsRelay;

  @Test
  @Order(1)
  void a_test_leaves_a_blocked_message_a_partition_row_and_a_row_of_another_outbox(Outbox outbox, OutboxAdmin admin,
      RecordingRelay relay) throws Exception {
    firstTestsRelay = relay;
    relay.failGroup("order:1");
    outboxer.inTransaction(() -> outbox.publish(new Shipped(1, "post")));
    relay.awaitHanded(1);
    assertThat(admin.counts("shipments").pending()).isEqualTo(1);
    execute("INSERT INTO outbox_partition (outbox, partition_no, fencing_token) VALUES ('shipments', 99, 0)",
        "INSERT INTO outbox_partition (outbox, partition_no, fencing_token) VALUES ('someone-else', 0, 0)");
  }

  @Test
  @Order(2)
  void the_next_test_gets_a_new_outboxer_and_none_of_those_rows_but_the_other_outboxs(OutboxAdmin admin,
      RecordingRelay relay) throws Exception {
    assertThat(relay).isNotSameAs(firstTestsRelay);
    assertThat(relay.handed()).isEmpty();
    assertThat(admin.counts("shipments").pending()).isZero();
    assertThat(count("SELECT COUNT(*) FROM outbox_partition WHERE outbox = 'shipments' AND partition_no = 99")).isZero();
    assertThat(count("SELECT COUNT(*) FROM outbox_partition WHERE outbox = 'someone-else'")).isEqualTo(1);
  }

  @AfterAll
  static void removeTheOtherOutboxsRow() throws SQLException {
    execute("DELETE FROM outbox_partition WHERE outbox = 'someone-else'");
  }

  private static void execute(String... statements) throws SQLException {
    try (Connection connection = DATABASE.connect(); Statement statement = connection.createStatement()) {
      for (String sql : statements) {
        statement.execute(sql);
      }
    }
  }

  private static long count(String sql) throws SQLException {
    try (Connection connection = DATABASE.connect(); Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getLong(1);
    }
  }
}
