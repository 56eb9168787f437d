package dev.outboxer.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The injected inbox, as an application on a server gets it: configured with {@code outbox.inbox.*}
 * keys, its data source the application's JTA one, checked when the application starts. Runs in the
 * Java SE container of real parts (Weld, Narayana, Agroal) on H2.
 */
class InboxProducerTest {

  private static final TestDatabase DATABASE = TestDatabase.H2;

  @BeforeEach
  void createTables() {
    InboxTestSchema.reset(DATABASE);
  }

  @Test
  void theInjectedInboxJoinsTheCallersJtaTransaction() throws Exception {
    try (OutboxTestContainer container = start(Map.of())) {
      Inbox inbox = container.select(Inbox.class);
      container.transactionManager().begin();
      try {
        assertThat(inbox.accept("orders", "order:1", 5)).isTrue();
      } finally {
        container.transactionManager().rollback();
      }

      assertThat(container.<Boolean>inTransaction(() -> inbox.accept("orders", "order:1", 5))).isTrue();
      assertThat(container.<Boolean>inTransaction(() -> inbox.accept("orders", "order:1", 5))).isFalse();
    }
  }

  @Test
  void outsideATransactionTheInjectedInboxRefusesToDecide() throws Exception {
    try (OutboxTestContainer container = start(Map.of())) {
      Inbox inbox = container.select(Inbox.class);

      assertThatThrownBy(() -> inbox.accept("orders", "order:1", 5))
          .isInstanceOf(InboxException.class)
          .hasMessageContaining("auto-commit");
      assertThat(container.<Boolean>inTransaction(() -> inbox.accept("orders", "order:1", 5))).isTrue();
    }
  }

  @Test
  void anOutboxConfiguredByIdIsDeduplicatedPerId() throws Exception {
    try (OutboxTestContainer container = start(Map.of("outbox.audit.inbox.deduplicate", "id"))) {
      Inbox inbox = container.select(Inbox.class);
      assertThat(container.<Boolean>inTransaction(() -> inbox.accept("audit", "user:1", 9))).isTrue();

      assertThat(container.<Boolean>inTransaction(() -> inbox.accept("audit", "user:1", 5))).isTrue();
      assertThat(container.<Boolean>inTransaction(() -> inbox.accept("orders", "user:1", 9))).isTrue();
      assertThat(container.<Boolean>inTransaction(() -> inbox.accept("orders", "user:1", 5))).isFalse();
    }
  }

  @Test
  void anUnknownKeyFailsTheStartNamingIt() {
    assertStartFails(() -> start(Map.of("outbox.inbox.datasorce", "jdbc/orders")), "outbox.inbox.datasorce",
        "outbox.inbox.datasorce is not a setting of the inbox. Did you mean outbox.inbox.datasource? Known keys under"
            + " outbox.inbox.: [datasource, retention, retention-chunk-size, retention-interval, schema]");
    assertStartFails(() -> start(Map.of("outbox.orders.inbox.dedupe", "id")), "outbox.orders.inbox.dedupe",
        "outbox.orders.inbox.dedupe is not a setting of the inbox of outbox 'orders'. Known keys under"
            + " outbox.orders.inbox.: [deduplicate]");
    assertStartFails(() -> start(Map.of("outbox.orders.inbox.deduplicat", "id")), "outbox.orders.inbox.deduplicat",
        "Did you mean outbox.orders.inbox.deduplicate?");
  }

  @Test
  void aBadValueFailsTheStartNamingKeyAndValue() {
    assertStartFails(() -> start(Map.of("outbox.orders.inbox.deduplicate", "sometimes")),
        "outbox.orders.inbox.deduplicate", "outbox.orders.inbox.deduplicate=sometimes is not valid");
    assertStartFails(() -> start(Map.of("outbox.inbox.schema", "create")), "outbox.inbox.schema",
        "outbox.inbox.schema=create is not valid");
  }

  @Test
  void aConfiguredRetentionForgetsOldIdsOnItsScheduleMeasuredOnTheApplicationsClock() throws Exception {
    try (OutboxTestContainer container = start(Map.of("outbox.inbox.retention", "7d",
        "outbox.inbox.retention-interval", "1s"))) {
      Inbox inbox = container.select(Inbox.class);
      assertThat(container.<Boolean>inTransaction(() -> inbox.accept("orders", "order:1", 5))).isTrue();
      container.clock().advance(java.time.Duration.ofDays(6));
      assertThat(container.<Boolean>inTransaction(() -> inbox.accept("orders", "order:2", 5))).isTrue();
      container.clock().advance(java.time.Duration.ofDays(2));

      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20)).untilAsserted(() ->
          assertThat(container.<Boolean>inTransaction(() -> inbox.accept("orders", "order:1", 5)))
              .as("order:1, accepted 8 days ago on the application's clock, is forgotten").isTrue());
      assertThat(container.<Boolean>inTransaction(() -> inbox.accept("orders", "order:2", 5)))
          .as("order:2, accepted 2 days ago, is remembered").isFalse();
    }
  }

  @Test
  void aBadRetentionValueFailsTheStartNamingKeyAndValue() {
    assertStartFails(() -> start(Map.of("outbox.inbox.retention", "-1d")), "outbox.inbox.retention",
        "outbox.inbox.retention=-1d is not a duration");
    assertStartFails(() -> start(Map.of("outbox.inbox.retention", "4000d")), "outbox.inbox.retention",
        "outbox.inbox.retention=4000d is too long: the limit is 3650d");
    assertStartFails(() -> start(Map.of("outbox.inbox.retention-interval", "500ms")),
        "outbox.inbox.retention-interval", "outbox.inbox.retention-interval=500ms is too short: the least is 1s");
    assertStartFails(() -> start(Map.of("outbox.inbox.retention-chunk-size", "0")),
        "outbox.inbox.retention-chunk-size", "outbox.inbox.retention-chunk-size=0 is out of range: use a number"
            + " from 1 to 10000");
  }

  @Test
  void aDataSourceNameThatCannotBeLookedUpFailsTheStart() {
    assertStartFails(() -> start(Map.of("outbox.inbox.datasource", "jdbc/consumer")), "outbox.inbox.datasource",
        "outbox.inbox.datasource=jdbc/consumer could not be looked up");
  }

  @Test
  void missingTablesFailTheStartUnlessTheCheckIsOff() throws Exception {
    InboxTestSchema.drop(DATABASE);

    assertThatThrownBy(() -> start(Map.of()).close())
        .satisfies(failure -> assertThat(cause(failure, InboxException.class))
            .hasMessageContaining("missing table outbox_inbox, table outbox_inbox_message")
            .hasMessageContaining("META-INF/outboxer/inbox/flyway/h2/V1__outboxer_inbox.sql"));
    try (OutboxTestContainer container = start(Map.of("outbox.inbox.schema", "none"))) {
      assertThat(container.select(Inbox.class)).isNotNull();
    }
  }

  @Test
  void an_application_that_neither_injects_nor_configures_the_inbox_starts_without_its_data_source_or_tables()
      throws Exception {
    // Issue 27: a Java SE publisher with outbox-inbox on its class path failed to start, asked for
    // outbox.inbox.datasource (a JNDI name, in Java SE) for a module it does not use.
    InboxTestSchema.drop(DATABASE);
    try (OutboxTestContainer container = OutboxTestContainer.builder(DATABASE).start()) {
      assertThat(container).isNotNull();
    }
  }

  @Test
  void an_application_that_injects_the_inbox_still_fails_to_start_when_its_tables_are_missing() {
    InboxTestSchema.drop(DATABASE);

    assertThatThrownBy(() -> OutboxTestContainer.builder(DATABASE).viaDataSource().beans(Consumer.class).start().close())
        .satisfies(failure -> assertThat(cause(failure, InboxException.class))
            .hasMessageContaining("missing table outbox_inbox"));
  }

  /** A consumer that injects the inbox, as an MDB or a Kafka listener bean does. */
  @jakarta.enterprise.context.ApplicationScoped
  static class Consumer {
    @jakarta.inject.Inject Inbox inbox;
  }

  private static OutboxTestContainer start(Map<String, String> config) {
    return OutboxTestContainer.builder(DATABASE).config(config).viaDataSource().beans(Consumer.class).start();
  }

  private static void assertStartFails(ThrowingCallable start, String key, String message) {
    assertThatThrownBy(start).satisfies(failure -> {
      OutboxConfigurationException problem = cause(failure, OutboxConfigurationException.class);
      assertThat(problem.key()).isEqualTo(key);
      assertThat(problem).hasMessageContaining(message);
    });
  }

  private static <T extends Throwable> T cause(Throwable failure, Class<T> type) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (type.isInstance(cause)) {
        return type.cast(cause);
      }
    }
    throw new AssertionError("No " + type.getSimpleName() + " in the cause chain of " + failure, failure);
  }
}
