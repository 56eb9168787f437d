package dev.outboxer.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.OutboxMessage;
import dev.outboxer.cdi.internal.admin.OutboxAdminBean;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.transaction.UserTransaction;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Issue 27, the test kit on a user's project: the application's own beans are not doubled by the kit's. A
 * {@code UserTransaction} producer of the application (as a Java SE application has one) made the type ambiguous,
 * reported as missing; a class listed in {@code beans(...)} that discovery finds anyway (a service in a bean archive)
 * gave {@code WELD-001335: Ambiguous dependencies}.
 */
class ApplicationBeansTest {

  /** The application's producer, as in its Java SE wiring. */
  @ApplicationScoped
  public static class ApplicationTransactions {
    static final AtomicInteger PRODUCED = new AtomicInteger();

    @Produces
    UserTransaction userTransaction() {
      PRODUCED.incrementAndGet();
      return com.arjuna.ats.jta.UserTransaction.userTransaction();
    }
  }

  public record Ping(int n) implements OutboxMessage {}

  @Test
  void the_applications_user_transaction_producer_is_the_one_outboxer_uses() throws Exception {
    try (OutboxTestContainer container = OutboxTestContainer.builder(TestDatabase.H2)
        .config("outbox.orders.relay", "recording")
        .beans(RecordingRelay.class, ApplicationTransactions.class)
        .start()) {
      long id = container.inTransaction(() -> container.select(Outbox.class).publish("orders", new Ping(1)));

      assertThat(id).isPositive();
      assertThat(container.select(UserTransaction.class)).isNotNull();
      assertThat(ApplicationTransactions.PRODUCED).hasPositiveValue();
    }
  }

  @Test
  void a_class_that_discovery_finds_anyway_is_not_added_a_second_time() {
    // OutboxAdminBean lies in outbox-cdi.jar, a bean archive (annotated), and is @ApplicationScoped.
    try (OutboxTestContainer container = OutboxTestContainer.builder(TestDatabase.H2)
        .config("outbox.orders.relay", "recording")
        .beans(RecordingRelay.class, OutboxAdminBean.class)
        .start()) {
      assertThat(container.select(OutboxAdmin.class).outboxes()).contains("orders");
    }
  }
}
