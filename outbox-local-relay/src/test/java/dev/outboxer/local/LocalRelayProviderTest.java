package dev.outboxer.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.arjuna.ats.jta.common.jtaPropertyManager;
import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.Ordering;
import dev.outboxer.local.ValidationBeans.Note;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import dev.outboxer.testing.TestRelayBatch;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.spi.DeploymentException;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionManager;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The provider against real CDI bean metadata (Weld SE, no database): what it accepts and rejects
 * at deployment, how it routes records to handlers, and that it stops a doomed batch. One container
 * holds handler beans for several outboxes, one per situation.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LocalRelayProviderTest {

  private WeldContainer weld;
  private LocalRelayProvider provider;

  /** Narayana's registry, as a server would provide it. */
  @ApplicationScoped
  public static class Registry {
    @Produces
    TransactionSynchronizationRegistry registry() {
      return jtaPropertyManager.getJTAEnvironmentBean().getTransactionSynchronizationRegistry();
    }
  }

  @BeforeAll
  void start() {
    Weld builder = new Weld("local-relay-provider-test").disableDiscovery().skipShutdownHook()
        .addBeanClasses(LocalRelayProvider.class, Registry.class, ValidationBeans.NotAHandler.class);
    Arrays.stream(ValidationBeans.class.getDeclaredClasses())
        .filter(type -> OutboxHandler.class.isAssignableFrom(type) || OutboxMessageHandler.class.isAssignableFrom(type)
            || type == ValidationBeans.TextCodec.class)
        .forEach(builder::addBeanClass);
    weld = builder.initialize();
    provider = weld.select(LocalRelayProvider.class).get();
  }

  @AfterAll
  void stop() {
    if (weld != null) {
      weld.shutdown();
    }
  }

  @BeforeEach
  void clear() {
    ValidationBeans.HANDLED.clear();
  }

  private static RelayContext context(String outbox, Map<String, String> properties) {
    return new RelayContext(outbox, Ordering.GROUP, 1, Duration.ofSeconds(30), properties);
  }

  @Test
  void an_outbox_without_handler_fails_naming_the_ways_to_add_one() {
    assertThatThrownBy(() -> provider.validate(context("nohandler", Map.of())))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("Outbox 'nohandler' has relay=local but no handler: add a CDI bean implementing"
            + " dev.outboxer.local.OutboxHandler with @HandlesOutbox(\"nohandler\")")
        .hasMessageContaining("outbox.nohandler.local.handler");
  }

  @Test
  void an_outbox_without_handler_names_a_near_outbox_that_has_one() {
    assertThatThrownBy(() -> provider.validate(context("typo", Map.of())))
        .hasMessageContaining("There are handlers for outbox 'tpyo': a typo in @HandlesOutbox?");
  }

  @Test
  void two_handlers_for_one_type_fail_naming_both() {
    assertThatThrownBy(() -> provider.validate(context("twice", Map.of())))
        .hasMessageContaining("Outbox 'twice' has 2 handlers for message type 'Paid':")
        .hasMessageContaining(ValidationBeans.PaidOne.class.getName())
        .hasMessageContaining(ValidationBeans.PaidTwo.class.getName());
  }

  @Test
  void two_handlers_for_every_type_fail_even_when_one_is_named_in_the_configuration() {
    assertThatThrownBy(() -> provider.validate(context("everything", Map.of("handler", "everythingNamed"))))
        .hasMessageContaining("Outbox 'everything' has 2 handlers for every message type:")
        .hasMessageContaining("'everythingNamed' (" + ValidationBeans.EverythingNamed.class.getName()
            + "), named in outbox.everything.local.handler");
  }

  @Test
  void an_unknown_key_fails_naming_the_nearest_known_key() {
    assertThatThrownBy(() -> provider.validate(context("tpyo", Map.of("handlr", "x"))))
        .isInstanceOfSatisfying(OutboxConfigurationException.class,
            e -> assertThat(e.key()).isEqualTo("outbox.tpyo.local.handlr"))
        .hasMessage("outbox.tpyo.local.handlr is not a setting of the local relay of outbox 'tpyo'. Did you mean"
            + " outbox.tpyo.local.handler? Known keys under outbox.tpyo.local.: [handler]");
  }

  @Test
  void a_handler_name_that_matches_no_handler_fails_with_the_nearest_name() {
    assertThatThrownBy(() -> provider.validate(context("named", Map.of("handler", "everythingNamd"))))
        .hasMessageContaining("outbox.named.local.handler names 'everythingNamd', which is no bean (did you mean"
            + " 'everythingNamed'?)");
    assertThatThrownBy(() -> provider.validate(context("named", Map.of("handler", "notAHandler"))))
        .hasMessageContaining("names 'notAHandler', which is a bean of class " + ValidationBeans.NotAHandler.class.getName()
            + ", not a handler");
  }

  @Test
  void every_problem_is_reported_at_once() {
    assertThatThrownBy(() -> provider.validate(context("nohandler", Map.of("handlers", "x", "extra", "y"))))
        .satisfies(e -> assertThat(e.getSuppressed()).hasSize(2))
        .hasMessageContaining("outbox.nohandler.local.extra is not a setting");
  }

  @Test
  void a_typed_handler_without_a_concrete_message_class_fails() {
    assertThatThrownBy(() -> provider.validate(context("generic", Map.of())))
        .hasMessageContaining("is an OutboxMessageHandler<T>: the local relay needs the message class");
  }

  @Test
  void a_bean_implementing_both_handler_interfaces_fails() {
    assertThatThrownBy(() -> provider.validate(context("both", Map.of())))
        .hasMessageContaining(ValidationBeans.Both.class.getName() + " implements both OutboxHandler and"
            + " OutboxMessageHandler");
  }

  @Test
  void a_record_goes_to_the_handler_of_its_type_else_to_the_handler_of_every_type() throws Exception {
    provider.validate(context("mixed", Map.of()));
    OutboxRecord note = record(1, "a", "Note", "hello");
    OutboxRecord audit = record(2, "b", "Audit", "audited");
    OutboxRecord other = record(3, "c", "Other", "{}");
    TestRelayBatch batch = relayInTransaction("mixed", Status.STATUS_ACTIVE, note, audit, other);

    assertThat(batch.confirmed()).containsExactly(note, audit, other);
    // The Note came through the application's PayloadCodec (plain text, not JSON).
    assertThat(ValidationBeans.HANDLED).containsExactly("note:hello:1", "audit:2", "every:Other:3");
  }

  @Test
  void after_a_handler_failure_the_transaction_is_doomed_and_later_records_are_not_handled() throws Exception {
    OutboxRecord first = record(1, "a", "Other", "{}");
    OutboxRecord failing = record(2, "b", "Audit", "fail");
    OutboxRecord sameGroup = record(3, "b", "Other", "{}");
    OutboxRecord later = record(4, "c", "Other", "{}");
    TestRelayBatch batch = relayInTransaction("mixed", Status.STATUS_MARKED_ROLLBACK, first, failing, sameGroup, later);

    assertThat(batch.failure(failing)).hasMessage("audit handler refuses 2");
    assertThat(batch.outcome(sameGroup)).as("held back").isNull();
    // Confirmed without being handled: the transaction cannot commit, so nothing is deleted.
    assertThat(batch.confirmed()).containsExactly(first, later);
    assertThat(ValidationBeans.HANDLED).containsExactly("every:Other:1", "audit:2");
    assertThat(batch.violations()).isEmpty();
  }

  @Test
  void in_total_order_the_records_after_a_failure_are_held_back_not_handled() throws Exception {
    OutboxRecord failing = record(1, "a", "Audit", "fail");
    OutboxRecord other = record(2, "b", "Other", "{}");
    TestRelayBatch batch = relayInTransaction("mixed", Status.STATUS_MARKED_ROLLBACK,
        TestRelayBatch.of(Ordering.TOTAL, failing, other));

    assertThat(batch.failed()).containsExactly(failing);
    assertThat(batch.outcome(other)).isNull();
    assertThat(ValidationBeans.HANDLED).containsExactly("audit:1");
  }

  @Test
  void a_batch_whose_deadline_is_too_near_runs_no_handler() throws Exception {
    OutboxRecord record = record(1, "a", "Other", "{}");
    TestRelayBatch batch = relayInTransaction("mixed", Status.STATUS_ACTIVE,
        new TestRelayBatch("mixed", Ordering.GROUP, Instant.now().plusMillis(50), java.util.List.of(record)));

    assertThat(batch.outcomes()).isEmpty();
    assertThat(ValidationBeans.HANDLED).isEmpty();
  }

  @Test
  void a_handler_that_returns_after_the_deadline_dooms_the_batch() throws Exception {
    // Its confirmation may come after the worker stopped listening: its writes must not commit without the deletion.
    OutboxRecord slow = record(1, "a", "Audit", "slow");
    OutboxRecord next = record(2, "b", "Other", "{}");
    TestRelayBatch batch = relayInTransaction("mixed", Status.STATUS_MARKED_ROLLBACK,
        new TestRelayBatch("mixed", Ordering.GROUP, Instant.now().plusMillis(300), java.util.List.of(slow, next)));

    assertThat(ValidationBeans.HANDLED).containsExactly("audit:1");
    assertThat(batch.outcome(next)).isNull();
  }

  @Test
  void a_batch_whose_claim_lapsed_runs_no_handler() throws Exception {
    TestRelayBatch lapsed = TestRelayBatch.of(Ordering.GROUP, record(1, "a", "Other", "{}"));
    lapsed.loseClaim();
    TestRelayBatch batch = relayInTransaction("mixed", Status.STATUS_ACTIVE, lapsed);

    assertThat(batch.outcomes()).isEmpty();
    assertThat(ValidationBeans.HANDLED).isEmpty();
  }

  @Test
  void closing_the_relay_destroys_its_dependent_handlers() throws Exception {
    int before = ValidationBeans.NOTES_DESTROYED.get();
    relayInTransaction("mixed", Status.STATUS_ACTIVE, record(1, "a", "Note", "hello"));
    assertThat(ValidationBeans.NOTES_DESTROYED.get()).isEqualTo(before + 1);
  }

  @Test
  void a_payload_that_cannot_be_decoded_fails_its_record_alone() throws Exception {
    OutboxRecord empty = record(1, "a", "Note", "");
    OutboxRecord next = record(2, "b", "Other", "{}");
    TestRelayBatch batch = relayInTransaction("mixed", Status.STATUS_ACTIVE, empty, next);

    assertThat(batch.failure(empty)).isInstanceOf(LocalRelayException.class)
        .hasMessageContaining("the payload of message 1 (type Note, text/plain) cannot be decoded into "
            + Note.class.getName());
    assertThat(batch.confirmed()).containsExactly(next);
  }

  @Test
  void a_deployment_with_a_local_outbox_and_no_handler_fails() {
    assertThatThrownBy(() -> OutboxTestContainer.builder(TestDatabase.H2)
            .config("outbox.lonely.relay", "local")
            .start())
        .isInstanceOf(DeploymentException.class)
        .hasStackTraceContaining("Outbox 'lonely' has relay=local but no handler");
  }

  /**
   * Runs a batch through the relay of an outbox inside a Narayana transaction, then checks the
   * transaction's status before rolling it back.
   */
  private TestRelayBatch relayInTransaction(String outbox, int expectedStatus, OutboxRecord... records)
      throws Exception {
    return relayInTransaction(outbox, expectedStatus, TestRelayBatch.of(Ordering.GROUP, records));
  }

  private TestRelayBatch relayInTransaction(String outbox, int expectedStatus, TestRelayBatch batch) throws Exception {
    TransactionManager tm = com.arjuna.ats.jta.TransactionManager.transactionManager();
    try (Relay relay = provider.create(context(outbox, Map.of()))) {
      tm.begin();
      try {
        relay.relay(batch);
        batch.end();
        assertThat(tm.getStatus()).isEqualTo(expectedStatus);
      } finally {
        tm.rollback();
      }
    }
    return batch;
  }

  private static OutboxRecord record(long id, String group, String type, String payload) {
    return new OutboxRecord(id, "mixed", 0, group, type, "text/plain", payload.getBytes(StandardCharsets.UTF_8),
        Map.of(), 0, Instant.now());
  }
}
