package dev.outboxer.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxMessage;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityManager;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 27, the test kit on a user's project: a service that writes its entities with JPA and publishes in the same
 * transaction runs without a producer of its own (a 40-line one was needed), and the inbox's tables are there when
 * outbox-inbox is on the class path (the start failed on H2 until {@code outbox.inbox.schema=none}).
 */
class ApplicationEntitiesTest {

  /** The application's entity. */
  @Entity
  @Table(name = "kit_purchase")
  public static class Purchase {
    @Id
    public long id;
    public String item;
  }

  public record PurchaseMade(long id) implements OutboxMessage {}

  /** The application's service: JPA and the outbox in one transaction. */
  @ApplicationScoped
  public static class PurchaseService {
    @Inject
    EntityManager entityManager;
    @Inject
    Outbox outbox;

    public void buy(long id, String item) {
      Purchase purchase = new Purchase();
      purchase.id = id;
      purchase.item = item;
      entityManager.persist(purchase);
      entityManager.flush();
      outbox.publish("purchases", new PurchaseMade(id));
    }

    public long count() {
      return entityManager.createQuery("SELECT COUNT(p) FROM ApplicationEntitiesTest$Purchase p", Long.class)
          .getSingleResult();
    }
  }

  @RegisterExtension
  static OutboxerExtension outboxer = OutboxerExtension.builder()
      .jdbcUrl("jdbc:h2:mem:kit-entities;DB_CLOSE_DELAY=-1")
      .outbox("purchases")
      .config("outbox.worker", "none")
      .entities(Purchase.class)
      .beans(PurchaseService.class)
      .build();

  @Test
  void an_entity_and_its_message_commit_together_and_roll_back_together(DataSource dataSource) throws Exception {
    PurchaseService service = outboxer.select(PurchaseService.class);
    outboxer.inTransaction(() -> service.buy(1, "book"));
    assertThatThrownBy(() -> outboxer.inTransaction(() -> {
      service.buy(2, "lamp");
      throw new IllegalStateException("payment declined");
    })).hasMessage("payment declined");

    assertThat(outboxer.inTransaction(service::count)).isEqualTo(1L);
    assertThat(outboxer.admin().counts("purchases").pending()).isEqualTo(1L);
  }

  @Test
  void the_inbox_tables_are_created_when_outbox_inbox_is_on_the_class_path(DataSource dataSource) throws Exception {
    try (Connection connection = dataSource.getConnection()) {
      DatabaseMetaData meta = connection.getMetaData();
      try (ResultSet tables = meta.getTables(null, null, "OUTBOX_INBOX", null)) {
        assertThat(tables.next()).as("table outbox_inbox").isTrue();
      }
    }
  }
}
