package dev.outboxer.inbox;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import org.junit.jupiter.api.Test;

class InboxRefusalsOnPostgreSqlTest extends InboxRefusalsContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }

  /** PostgreSQL's upsert needs the key (SQLState 42P10): the failure must say which script makes it. */
  @Test
  void withoutTheCheckAnAcceptOnATableWithoutPrimaryKeyFailsNamingTheScript() throws Exception {
    InboxTestSchema.create(database(), without("outbox_inbox_pk PRIMARY KEY (outbox, group_key)"));
    Inbox unchecked = Inbox.builder(dataSource).checkSchema(false).build();

    try (Connection connection = transaction()) {
      assertThatThrownBy(() -> unchecked.accept(connection, new InboxMessage("orders", "order:1", 5)))
          .isInstanceOf(InboxException.class)
          .hasMessageContaining("42P10")
          .hasMessageContaining("The inbox tables are missing or incomplete")
          .hasMessageContaining(dialect().ddlResource());
      connection.rollback();
    }
  }
}
