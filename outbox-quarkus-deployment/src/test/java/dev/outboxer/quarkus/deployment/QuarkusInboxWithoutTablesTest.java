package dev.outboxer.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Quarkus application that injects the inbox does not start when the inbox tables are missing
 * from its data source, and the failure names the tables and the script that creates them, as on
 * the servers.
 */
class QuarkusInboxWithoutTablesTest {

  @RegisterExtension
  static final QuarkusUnitTest APP = QuarkusTestApplication.on(TestDatabase.POSTGRESQL,
          () -> InboxTables.drop(TestDatabase.POSTGRESQL), RecordingRelay.class, PaymentConsumer.class,
          InboxTables.class)
      .overrideConfigKey("outbox.orders.relay", "recording")
      .assertException(failure -> {
        Throwable problem = failure;
        while (problem != null && !problem.getClass().getName().equals("dev.outboxer.inbox.InboxException")) {
          problem = problem.getCause();
        }
        assertThat(problem).as("the start failed with the inbox's schema check: %s", failure).isNotNull();
        assertThat(problem.getMessage())
            .contains("missing table outbox_inbox, table outbox_inbox_message")
            .contains("META-INF/outboxer/inbox/flyway/postgresql/V1__outboxer_inbox.sql");
      });

  @Test
  void doesNotStart() {
    // assertException above: the application must not have started
  }
}
