package dev.outboxer.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A misspelt inbox key given as an environment variable ({@code OUTBOX_INBOX_SCHEME=none}, set by the
 * pom's surefire execution {@code inbox-misspelt-environment}) fails the start of a Quarkus
 * application that injects the inbox, named as written, with the variable it is near.
 */
@Tag(QuarkusMisspeltInboxEnvironmentVariableTest.TAG)
class QuarkusMisspeltInboxEnvironmentVariableTest {

  static final String TAG = "inbox-misspelt-environment";

  @RegisterExtension
  static final QuarkusUnitTest APP = QuarkusTestApplication.on(TestDatabase.POSTGRESQL,
          () -> InboxTables.reset(TestDatabase.POSTGRESQL), RecordingRelay.class, PaymentConsumer.class,
          InboxTables.class)
      .overrideConfigKey("outbox.orders.relay", "recording")
      .assertException(failure -> {
        assertThat(System.getenv("OUTBOX_INBOX_SCHEME")).as("set by the pom's execution %s", TAG).isEqualTo("none");
        Throwable problem = QuarkusTestApplication.configurationProblem(failure);
        assertThat(problem).as("the start failed with the inbox's configuration problem: %s", failure).isNotNull();
        assertThat(problem.getMessage()).contains("OUTBOX_INBOX_SCHEME").contains("Did you mean OUTBOX_INBOX_SCHEMA?");
      });

  @Test
  void doesNotStart() {
    // assertException above: the application must not have started
  }
}
