package dev.outboxer.cdi.internal.tx;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.transaction.UserTransaction;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 27, messages: an application that produces its own UserTransaction next to the platform's
 * made Outboxer say there was none ("could not find the JTA UserTransaction: there is no CDI bean
 * of that type"). Ambiguous is said as ambiguous, with the candidates. (The test kit steps aside for
 * an application's producer, so two of the application's own make the ambiguity here.)
 */
class AmbiguousTransactionBeansTest {

  @Test
  void two_user_transaction_beans_are_reported_as_ambiguous_naming_both() {
    assertThatThrownBy(() -> OutboxTestContainer.builder(TestDatabase.H2)
        .config(Map.of("outbox.orders.relay", "recording"))
        .beans(RecordingRelay.class, ApplicationsOwnUserTransaction.class, AnotherUserTransaction.class)
        .start().close())
        .hasStackTraceContaining("more than one CDI bean of type UserTransaction")
        .hasStackTraceContaining(ApplicationsOwnUserTransaction.class.getName())
        .hasStackTraceContaining("@Alternative");
  }

  /** An application's producer of the JTA UserTransaction, as users write for Java SE. */
  @ApplicationScoped
  public static class ApplicationsOwnUserTransaction {
    @Produces
    UserTransaction userTransaction() {
      return com.arjuna.ats.jta.UserTransaction.userTransaction();
    }
  }

  /** A second producer, as a library or a second module of the application might bring. */
  @ApplicationScoped
  public static class AnotherUserTransaction {
    @Produces
    UserTransaction userTransaction() {
      return com.arjuna.ats.jta.UserTransaction.userTransaction();
    }
  }
}
