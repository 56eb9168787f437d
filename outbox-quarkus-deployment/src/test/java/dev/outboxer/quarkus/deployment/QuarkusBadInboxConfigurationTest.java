package dev.outboxer.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import io.quarkus.test.QuarkusUnitTest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Quarkus application that injects the inbox and whose {@code outbox.inbox.*} and {@code
 * outbox.<name>.inbox.*} keys are wrong does not start, and the failure names each bad key: the
 * refusals of the servers (a misspelt key with the key it is near, values that are not valid, out
 * of range, too short or not a duration), each in the one failure (the first, the others suppressed
 * in it). The inbox's own reading of its keys, as on the servers, where its portable extension
 * (which ArC does not run) decides that the application uses the inbox.
 */
class QuarkusBadInboxConfigurationTest {

  @RegisterExtension
  static final QuarkusUnitTest APP = QuarkusTestApplication.on(TestDatabase.POSTGRESQL,
          () -> InboxTables.reset(TestDatabase.POSTGRESQL), RecordingRelay.class, PaymentConsumer.class,
          InboxTables.class)
      .overrideConfigKey("outbox.orders.relay", "recording")
      .overrideConfigKey("outbox.inbox.datasorce", "jdbc/orders")
      .overrideConfigKey("outbox.inbox.schema", "create")
      .overrideConfigKey("outbox.inbox.retention", "-1d")
      .overrideConfigKey("outbox.inbox.retention-interval", "500ms")
      .overrideConfigKey("outbox.inbox.retention-chunk-size", "0")
      .overrideConfigKey("outbox.payments.inbox.deduplicate", "sometimes")
      .overrideConfigKey("outbox.payments.inbox.dedupe", "id")
      .assertException(failure -> {
        Throwable problem = QuarkusTestApplication.configurationProblem(failure);
        assertThat(problem).as("the start failed with the inbox's configuration problems: %s", failure).isNotNull();
        List<String> messages = new ArrayList<>();
        messages.add(problem.getMessage());
        for (Throwable other : problem.getSuppressed()) {
          messages.add(other.getMessage());
        }
        assertThat(String.join("\n", messages))
            .contains("outbox.inbox.datasorce is not a setting of the inbox. Did you mean outbox.inbox.datasource?")
            .contains("outbox.inbox.schema=create is not valid")
            .contains("outbox.inbox.retention=-1d is not a duration")
            .contains("outbox.inbox.retention-interval=500ms is too short: the least is 1s")
            .contains("outbox.inbox.retention-chunk-size=0 is out of range")
            .contains("outbox.payments.inbox.deduplicate=sometimes is not valid")
            .contains("outbox.payments.inbox.dedupe is not a setting of the inbox of outbox 'payments'");
      });

  @Test
  void doesNotStart() {
    // assertException above: the application must not have started
  }
}
