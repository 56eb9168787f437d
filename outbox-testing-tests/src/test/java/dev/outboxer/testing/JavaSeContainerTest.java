package dev.outboxer.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxMessage;
import dev.outboxer.OutboxPersistence;
import dev.outboxer.se.JavaSeContainer;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityManager;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * outbox-java-se's {@link JavaSeContainer}, as an application starts it (issue 27, Java SE): Outboxer
 * from outbox-cdi on the class path, the application's entity and service, PostgreSQL through the
 * XA pool. This module's {@code META-INF/microprofile-config.properties} declares the outbox {@code
 * ghost} (relay {@code recording}, {@code outbox.worker=none}): published rows stay in the table.
 */
class JavaSeContainerTest {

  /** The application's entity. */
  @Entity
  @Table(name = "se_purchase")
  public static class Purchase {
    @Id
    public long id;
    public String item;
  }

  public record PurchaseMade(long id) implements OutboxMessage {}

  /** The application's service: its entity and its message in the caller's transaction. */
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
      outbox.publish("ghost", new PurchaseMade(id));
    }
  }

  @Test
  void an_entity_and_its_message_commit_together_and_roll_back_together() throws Exception {
    TestDatabase database = TestDatabase.POSTGRESQL;
    database.assumeAvailable();
    database.resetSchema();
    database.execute("DROP TABLE IF EXISTS se_purchase", "CREATE TABLE se_purchase (id BIGINT PRIMARY KEY, item VARCHAR(100))");

    try (JavaSeContainer container = JavaSeContainer.builder(database.url(), database.user(), database.password())
        .entities(Purchase.class)
        .beans(PurchaseService.class, RecordingRelay.class)
        .objectStoreDirectory(java.nio.file.Path.of("target", "narayana-java-se"))
        .start()) {
      PurchaseService service = container.select(PurchaseService.class);
      container.inTransaction(() -> {
        service.buy(1, "book");
        return null;
      });
      assertThatThrownBy(() -> container.inTransaction(() -> {
        service.buy(2, "lamp");
        throw new IllegalStateException("payment declined");
      })).hasMessage("payment declined");

      assertThat(count(database, "SELECT COUNT(*) FROM se_purchase")).isEqualTo(1);
      assertThat(new OutboxTables(database).messages("ghost")).hasSize(1);
      // Outboxer writes through the pool, offered as its data source (LISTEN/NOTIFY, the inbox).
      assertThat(container.select(DataSource.class, JavaSeBeansQualifier.OUTBOX_PERSISTENCE))
          .isSameAs(container.dataSource());
    } finally {
      database.execute("DROP TABLE IF EXISTS se_purchase");
    }
  }

  @Test
  void a_url_of_an_unknown_database_is_refused_naming_the_url_and_the_fix() {
    assertThatThrownBy(() -> JavaSeContainer.builder("jdbc:oracle:thin:@db:1521/orders", "app", "secret").start())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jdbc:oracle:thin:@db:1521/orders")
        .hasMessageContaining("xaDataSourceClass(...)");
  }

  private static long count(TestDatabase database, String sql) throws Exception {
    try (Connection connection = database.connect(); Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getLong(1);
    }
  }

  /** The qualifier, as the application's lookups write it. */
  private static final class JavaSeBeansQualifier {
    static final OutboxPersistence OUTBOX_PERSISTENCE = dev.outboxer.se.JavaSeBeans.OutboxPersistenceLiteral.INSTANCE;
  }
}
