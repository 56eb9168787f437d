package dev.outboxer.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.testing.TestDatabase;
import org.junit.jupiter.api.Test;

class InboxRefusalsOnMariaDbTest extends InboxRefusalsContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  /**
   * Without its primary key, MariaDB's {@code INSERT IGNORE} has nothing to ignore: every copy of an
   * ungrouped message is inserted and processed. The check is what stands in the way.
   */
  @Test
  void withoutTheCheckAMessageTableWithoutPrimaryKeyLetsEveryCopyThrough() throws Exception {
    InboxTestSchema.create(database(), without("outbox_inbox_message_pk PRIMARY KEY (outbox, message_id)"));
    Inbox unchecked = Inbox.builder(dataSource).checkSchema(false).build();

    assertThat(acceptCommitted(unchecked, "orders", null, 5)).isTrue();
    assertThat(acceptCommitted(unchecked, "orders", null, 5)).as("the copy, processed again").isTrue();
  }

  /** utf8mb3 has no 4-byte characters: an emoji key would fail at every redelivery. */
  @Test
  void buildFailsOnAGroupKeyColumnThatCannotHoldEmoji() {
    InboxTestSchema.create(database(), groupKeyColumn("CHARACTER SET utf8mb3 COLLATE utf8mb3_bin"));

    assertBuildFails()
        .hasMessageContaining("column outbox_inbox.group_key")
        .hasMessageContaining("utf8mb3")
        .hasMessageContaining("utf8mb4");
  }

  /** 'Order:1' and 'order:1', or 'a' and 'a ', would be one group: a message of one dropped as a copy. */
  @Test
  void buildFailsOnAGroupKeyColumnWhoseCollationIgnoresCaseOrTrailingSpaces() {
    InboxTestSchema.create(database(), groupKeyColumn("CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci"));
    assertBuildFails()
        .hasMessageContaining("column outbox_inbox.group_key")
        .hasMessageContaining("utf8mb4_general_ci")
        .hasMessageContaining("utf8mb4_nopad_bin");

    InboxTestSchema.create(database(), groupKeyColumn("CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"));
    assertBuildFails()
        .hasMessageContaining("column outbox_inbox.group_key")
        .hasMessageContaining("utf8mb4_bin");
  }

  @Test
  void buildFailsOnAnOutboxColumnWhoseCollationIgnoresCase() {
    InboxTestSchema.create(database(), script().replaceFirst("COLLATE=utf8mb4_nopad_bin", "COLLATE=utf8mb4_general_ci"));

    assertBuildFails()
        .hasMessageContaining("column outbox_inbox.outbox")
        .hasMessageContaining("utf8mb4_general_ci")
        .hasMessageNotContaining("column outbox_inbox.group_key");
  }

  private String groupKeyColumn(String charsetAndCollation) {
    String original = "CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL";
    assertThat(script()).contains(original);
    return script().replace(original, charsetAndCollation + " NOT NULL");
  }
}
