package dev.outboxer.cdi.internal.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.OutboxCounts;
import dev.outboxer.OutboxMessage;
import dev.outboxer.OutboxTransactionRequiredException;
import dev.outboxer.UnknownOutboxException;
import dev.outboxer.cdi.internal.AuditEntry;
import dev.outboxer.cdi.internal.Keyed;
import dev.outboxer.cdi.internal.OrderPlaced;
import dev.outboxer.cdi.internal.store.GroupHash;
import dev.outboxer.testing.OutboxTables.StoredMessage;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import dev.outboxer.testing.TestOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What {@code publish} promises, on each database: the row commits and rolls back with the business
 * data, no transaction means no row, ids increase, partitions are stable. Workers are off
 * ({@code outbox.worker=none}) so that rows stay where publish put them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class PublishContractTest {

  private static final int PARTITIONS = 8;

  private OutboxTestContainer container;
  private Outbox outbox;

  abstract TestDatabase database();

  /** Whether Outboxer gets the pool as an @OutboxPersistence DataSource instead of the EntityManager. */
  boolean viaDataSource() {
    return false;
  }

  @BeforeAll
  void start() {
    OutboxTestContainer.Builder builder = OutboxTestContainer.builder(database());
    if (viaDataSource()) {
      builder.viaDataSource();
    }
    container = builder
        .config("outbox.worker", "none")
        .config("outbox.orders.relay", "recording")
        .config("outbox.orders.partitions", String.valueOf(PARTITIONS))
        .config("outbox.audit.relay", "recording")
        .config("outbox.audit.ordering", "total")
        .beans(RecordingRelay.class)
        .start();
    outbox = container.select(Outbox.class);
  }

  @AfterAll
  void stop() {
    if (container != null) {
      container.close();
    }
  }

  @BeforeEach
  void emptyTables() throws Exception {
    container.tables().deleteAllMessages();
    container.inTransaction(() -> container.entityManager().createQuery("DELETE FROM TestOrder").executeUpdate());
  }

  @Test
  void commit_keeps_the_business_row_and_the_message() throws Exception {
    long id = container.inTransaction(() -> {
      container.entityManager().persist(new TestOrder(1, "one book"));
      return outbox.publish(new OrderPlaced(1, "book"));
    });

    container.inTransaction(() -> assertThat(container.entityManager().find(TestOrder.class, 1L)).isNotNull());
    StoredMessage row = container.tables().message(id).orElseThrow();
    assertThat(row.outbox()).isEqualTo("orders");
    assertThat(row.groupKey()).isEqualTo("order:1");
    assertThat(row.type()).isEqualTo("OrderPlaced");
    assertThat(row.contentType()).isEqualTo("application/json");
    assertThat(new String(row.payload(), StandardCharsets.UTF_8)).isEqualTo("{\"item\":\"book\",\"orderId\":1}");
    assertThat(row.status()).isEqualTo("PENDING");
    assertThat(row.attempts()).isZero();
    assertThat(row.nextAttemptAt()).isNull();
    assertThat(row.partitionKey()).isEqualTo(GroupHash.partitionKey("order:1"));
    assertThat(row.partition()).isEqualTo(GroupHash.partition(GroupHash.partitionKey("order:1"), PARTITIONS));
  }

  @Test
  void rollback_keeps_neither_the_business_row_nor_the_message() throws Exception {
    assertThatThrownBy(() -> container.inTransaction(() -> {
      container.entityManager().persist(new TestOrder(2, "two books"));
      outbox.publish(new OrderPlaced(2, "book"));
      throw new IllegalStateException("payment declined");
    })).hasMessage("payment declined");

    assertThat(countRows("TestOrder")).isZero();
    assertThat(container.tables().countMessages()).isZero();
  }

  @Test
  void publish_without_a_transaction_fails_naming_the_outbox_and_writes_nothing() throws Exception {
    assertThatThrownBy(() -> outbox.publish(new OrderPlaced(3, "book")))
        .isInstanceOf(OutboxTransactionRequiredException.class)
        .hasMessageContaining("Outbox 'orders'")
        .hasMessageContaining("no")
        .hasMessageContaining("Nothing was written")
        .satisfies(e -> assertThat(((OutboxTransactionRequiredException) e).outbox()).isEqualTo("orders"));

    assertThat(container.tables().countMessages()).isZero();
  }

  @Test
  void ids_increase_in_insertion_order_across_transactions() throws Exception {
    List<Long> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      int sequence = i;
      container.inTransaction(() -> {
        ids.add(outbox.publish("orders", new Keyed("k", sequence)));
        ids.add(outbox.publish("audit", new Keyed(null, sequence)));
      });
    }
    assertThat(ids).isSorted().doesNotHaveDuplicates();
  }

  @Test
  void a_group_key_always_lands_in_the_same_partition_and_null_keys_spread() throws Exception {
    List<Long> ids = new ArrayList<>();
    container.inTransaction(() -> {
      for (int i = 0; i < 200; i++) {
        ids.add(outbox.publish("orders", new Keyed("customer:7", i)));
        ids.add(outbox.publish("orders", new Keyed(null, i)));
      }
    });
    List<StoredMessage> rows = container.tables().messages("orders");
    Set<Integer> keyed = new HashSet<>();
    Set<Integer> unkeyed = new HashSet<>();
    rows.forEach(row -> (row.groupKey() == null ? unkeyed : keyed).add(row.partition()));
    assertThat(keyed).containsExactly(GroupHash.partition(GroupHash.partitionKey("customer:7"), PARTITIONS));
    assertThat(unkeyed).hasSize(PARTITIONS);
  }

  @Test
  void a_total_outbox_has_one_partition() throws Exception {
    long id = container.inTransaction(() -> outbox.publish("audit", new Keyed("any", 1)));
    assertThat(container.tables().message(id).orElseThrow().partition()).isZero();
  }

  @Test
  void type_name_and_headers_come_from_the_message() throws Exception {
    long id = container.inTransaction(() -> outbox.publish(new AuditEntry("hello")));
    StoredMessage row = container.tables().message(id).orElseThrow();
    assertThat(row.type()).isEqualTo("audit.entry.v1");
    assertThat(row.groupKey()).isNull();
    assertThat(container.select(Codecs.class).decodeHeaders(row.headers())).containsEntry("trace-id", "t-hello");
  }

  @Test
  void publishing_to_an_outbox_that_is_not_configured_fails_and_writes_nothing() throws Exception {
    assertThatThrownBy(() -> container.inTransaction(() -> outbox.publish("invoices", new Keyed("k", 1))))
        .isInstanceOf(UnknownOutboxException.class)
        .hasMessageContaining("No outbox named 'invoices'")
        .hasMessageContaining("outbox.invoices.relay")
        .hasMessageContaining("[audit, orders]");
    assertThat(container.tables().countMessages()).isZero();
  }

  @Test
  void a_message_type_without_outboxed_needs_an_explicit_outbox() throws Exception {
    assertThatThrownBy(() -> container.inTransaction(() -> outbox.publish(new Keyed("k", 1))))
        .isInstanceOf(UnknownOutboxException.class)
        .hasMessageContaining(Keyed.class.getName())
        .hasMessageContaining("@Outboxed");
  }

  @Test
  void a_group_key_longer_than_the_column_is_refused_before_anything_is_written() throws Exception {
    OutboxMessage tooLong = new Keyed("x".repeat(256), 1);
    assertThatThrownBy(() -> container.inTransaction(() -> outbox.publish("orders", tooLong)))
        .isInstanceOf(dev.outboxer.InvalidOutboxMessageException.class)
        .hasMessageContaining("Outbox 'orders'")
        .hasMessageContaining("group key is 256 characters long; the limit is 255");
    assertThat(container.tables().countMessages()).isZero();
  }

  @Test
  void admin_counts_lists_revives_and_discards_on_this_database() throws Exception {
    OutboxAdmin admin = container.select(OutboxAdmin.class);
    List<Long> ids = new ArrayList<>();
    container.inTransaction(() -> {
      for (int i = 0; i < 4; i++) {
        ids.add(outbox.publish("orders", new Keyed("admin", i)));
      }
    });
    container.clock().advance(Duration.ofSeconds(5));
    // Without workers, a failed and a dead message are written the way a worker writes them.
    LocalDateTime now = LocalDateTime.now(ZoneOffset.UTC);
    container.tables().execute("UPDATE outbox_message SET attempts = 2, next_attempt_at = ?, last_attempt_at = ?,"
        + " last_error = 'broker down' WHERE id = ?", now.plusMinutes(1), now, ids.get(0));
    container.tables().execute("UPDATE outbox_message SET attempts = 3, status = 'DEAD', last_attempt_at = ?,"
        + " last_error = 'poison' WHERE id = ?", now, ids.get(1));

    OutboxCounts counts = admin.counts("orders");
    assertThat(counts.pending()).isEqualTo(3);
    assertThat(counts.retrying()).isEqualTo(1);
    assertThat(counts.dead()).isEqualTo(1);
    assertThat(counts.oldestPendingAge()).isGreaterThanOrEqualTo(Duration.ofSeconds(5));
    assertThat(admin.dead("orders", 10)).singleElement().satisfies(dead -> {
      assertThat(dead.id()).isEqualTo(ids.get(1));
      assertThat(dead.attempts()).isEqualTo(3);
      assertThat(dead.lastError()).isEqualTo("poison");
    });
    assertThatThrownBy(() -> admin.dead("orders", 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> admin.counts("invoices")).isInstanceOf(UnknownOutboxException.class);

    assertThat(admin.retryDead("orders", ids.get(0))).as("not dead: ignored").isZero();
    assertThat(admin.retryDead("orders")).isEqualTo(1);
    assertThat(container.tables().message(ids.get(1))).as("a revived message is a new message: the old id is gone")
        .isEmpty();
    List<StoredMessage> newer = container.tables().messages("orders").stream()
        .filter(message -> message.id() > ids.get(3)).toList();
    assertThat(newer).as("the revived message, under an id above every earlier one").hasSize(1);
    StoredMessage revived = newer.get(0);
    assertThat(revived.groupKey()).isEqualTo("admin");
    assertThat(revived.status()).isEqualTo("PENDING");
    assertThat(revived.attempts()).isZero();
    assertThat(revived.nextAttemptAt()).as("a fresh message: workers read it with the other fresh ones, in id order"
        + " (its id, drawn in the revive's transaction, is settled as a publish's is)").isNull();
    assertThat(admin.counts("orders").dead()).isZero();

    assertThat(admin.discard("orders", ids.get(2))).isTrue();
    assertThat(admin.discard("orders", ids.get(2))).isFalse();
    assertThat(admin.discard("audit", ids.get(3))).as("another outbox's message").isFalse();
    assertThat(admin.counts("orders").pending()).isEqualTo(3);
  }

  private long countRows(String entity) throws Exception {
    return container.inTransaction(() -> container.entityManager()
        .createQuery("SELECT COUNT(e) FROM " + entity + " e", Long.class).getSingleResult());
  }
}
