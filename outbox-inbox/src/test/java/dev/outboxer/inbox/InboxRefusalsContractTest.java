package dev.outboxer.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What the inbox refuses or tolerates at its edges, on a real database: the longest group keys the
 * outbox relays, tables that would let duplicates through (no primary key, columns too small), tables
 * that are not there at all, and purge cut-offs at the ends of time. One subclass per database.
 */
abstract class InboxRefusalsContractTest {

  static final String EMOJI = "\uD83D\uDE00"; // U+1F600: one code point, two UTF-16 units

  DataSource dataSource;

  abstract TestDatabase database();

  @BeforeEach
  void createTables() throws SQLException {
    database().assumeAvailable();
    InboxTestSchema.reset(database());
    dataSource = InboxTestSchema.dataSource(database());
  }

  /**
   * The outbox allows group keys of 255 code points; 255 emoji are 510 UTF-16 units. The inbox must
   * accept such a key and keep it whole: a truncated or refused key would drop or block the group.
   */
  @Test
  void aGroupKeyOf255EmojiIsAcceptedOnceAndKeptApartFromAKeyDifferingInItsLastCharacter() throws Exception {
    Inbox inbox = Inbox.builder(dataSource).build();
    String key = EMOJI.repeat(255);
    String neighbour = EMOJI.repeat(254) + "\uD83D\uDE01";

    assertThat(acceptCommitted(inbox, "orders", key, 5)).isTrue();
    assertThat(acceptCommitted(inbox, "orders", key, 5)).as("the copy").isFalse();
    assertThat(acceptCommitted(inbox, "orders", neighbour, 5)).as("another group").isTrue();
    assertThat(acceptCommitted(inbox, "orders", key, 6)).isTrue();
  }

  /**
   * Every unusual key the outbox relays unchanged ({@code PublishValidationContractTest} in
   * outbox-cdi) is accepted once, its copy dropped, stored unchanged, and kept apart from its look-alike.
   */
  @ParameterizedTest
  @MethodSource("unusualKeysAndLookAlikes")
  void anUnusualKeyTheOutboxRelaysIsAcceptedOnceStoredUnchangedAndKeptApartFromItsLookAlike(String key,
      String lookAlike) throws Exception {
    Inbox inbox = Inbox.builder(dataSource).build();

    assertThat(acceptCommitted(inbox, "orders", key, 5)).isTrue();
    assertThat(acceptCommitted(inbox, "orders", key, 5)).as("the copy").isFalse();
    assertThat(acceptCommitted(inbox, "orders", lookAlike, 5)).as("its look-alike " + lookAlike).isTrue();
    try (Connection connection = dataSource.getConnection();
        PreparedStatement query = connection.prepareStatement(
            "SELECT group_key FROM outbox_inbox WHERE outbox = 'orders' AND last_id = 5")) {
      List<String> stored = new ArrayList<>();
      try (ResultSet rows = query.executeQuery()) {
        while (rows.next()) {
          stored.add(rows.getString(1));
        }
      }
      assertThat(stored).containsExactlyInAnyOrder(key, lookAlike);
    }
  }

  static Stream<Arguments> unusualKeysAndLookAlikes() {
    return Stream.of(
        Arguments.of("a\u200B", "a"), // a zero-width space after a letter
        Arguments.of("\u200B", "\u200C"), // a zero-width space alone: not blank for Java
        Arguments.of("\u00A0", "\u00A0 "), // a no-break space alone: not blank for Java
        Arguments.of("a ", "a"), // a trailing space
        Arguments.of("Order:1", "order:1"), // case
        Arguments.of("\u0001\u001F\u007F", "\u0001\u001F"), // control characters other than NUL
        Arguments.of("line\nbreak\ttab", "line break tab"),
        Arguments.of("\uFEFF\u202E", "\u202E"), // a byte order mark and a right-to-left override
        Arguments.of("e\u0301", "\u00E9"), // a combining accent, not normalised
        Arguments.of("\uFFFE\uFFFF", "\uFFFE"), // noncharacters
        Arguments.of("'\"\\%_", "'\"\\%x"), // quotes, a backslash and LIKE wildcards
        Arguments.of("\uD840\uDC00", "\uD840\uDC01")); // supplementary CJK characters
  }

  /**
   * Without the primary key MariaDB's upsert inserts another row at each accept instead of finding
   * the group's, and the group's last id is whichever row the lock reads first.
   */
  @Test
  void buildFailsOnAGroupTableWithoutPrimaryKeyNamingTheTableTheKeyAndTheScript() {
    InboxTestSchema.create(database(), without("outbox_inbox_pk PRIMARY KEY (outbox, group_key)"));

    assertBuildFails()
        .hasMessageContaining("table outbox_inbox has no primary key or unique constraint on (outbox, group_key)")
        .hasMessageNotContaining("outbox_inbox_message has");
  }

  /** A key on the group alone would take the same group of two outboxes for one: messages dropped. */
  @Test
  void buildFailsOnAGroupTableWhosePrimaryKeyIsTheGroupKeyAlone() {
    InboxTestSchema.create(database(), script().replace("PRIMARY KEY (outbox, group_key)", "PRIMARY KEY (group_key)"));

    assertBuildFails()
        .hasMessageContaining("table outbox_inbox has no primary key or unique constraint on (outbox, group_key)");
  }

  @Test
  void buildFailsOnAMessageTableWithoutPrimaryKey() {
    InboxTestSchema.create(database(), without("outbox_inbox_message_pk PRIMARY KEY (outbox, message_id)"));

    assertBuildFails()
        .hasMessageContaining("table outbox_inbox_message has no primary key or unique constraint on (outbox,"
            + " message_id)");
  }

  /** The check asks for uniqueness, not for that very constraint: a unique constraint serves as well. */
  @Test
  void aUniqueConstraintInsteadOfThePrimaryKeyIsAcceptedAndDropsCopies() throws Exception {
    InboxTestSchema.create(database(), script()
        .replace("outbox_inbox_pk PRIMARY KEY", "outbox_inbox_pk UNIQUE")
        .replace("outbox_inbox_message_pk PRIMARY KEY", "outbox_inbox_message_pk UNIQUE"));

    Inbox inbox = Inbox.builder(dataSource).build();
    assertThat(acceptCommitted(inbox, "orders", "order:1", 5)).isTrue();
    assertThat(acceptCommitted(inbox, "orders", "order:1", 5)).isFalse();
    assertThat(acceptCommitted(inbox, "orders", null, 5)).isTrue();
    assertThat(acceptCommitted(inbox, "orders", null, 5)).isFalse();
  }

  @Test
  void buildFailsOnAGroupKeyColumnTooShortFor255CodePoints() {
    assumeSizedColumns();
    InboxTestSchema.create(database(), script().replaceFirst("group_key(\\s+)VARCHAR\\(\\d+\\)", "group_key$1VARCHAR(100)"));

    assertBuildFails()
        .hasMessageContaining("column outbox_inbox.group_key")
        .hasMessageContaining("255 characters");
  }

  @Test
  void buildFailsOnAnIdColumnNarrowerThanBigint() {
    assumeSizedColumns();
    InboxTestSchema.create(database(), script().replaceFirst("message_id(\\s+)BIGINT", "message_id$1INTEGER"));

    assertBuildFails()
        .hasMessageContaining("column outbox_inbox_message.message_id")
        .hasMessageContaining("BIGINT");
  }

  /** With the schema check off (or the tables dropped since), the accept's failure says what to run. */
  @Test
  void anAcceptOrPurgeWithoutTheTablesFailsNamingTheScriptToRun() throws Exception {
    InboxTestSchema.drop(database());
    Inbox inbox = Inbox.builder(dataSource).checkSchema(false).build();

    try (Connection connection = transaction()) {
      assertThatThrownBy(() -> inbox.accept(connection, new InboxMessage("orders", "order:1", 5)))
          .isInstanceOf(InboxException.class)
          .hasMessageContaining("message 5 of group 'order:1' of outbox 'orders'")
          .hasMessageContaining("The inbox tables are missing or incomplete")
          .hasMessageContaining(dialect().ddlResource());
      connection.rollback();
    }
    try (Connection connection = transaction()) {
      assertThatThrownBy(() -> inbox.purge(connection, Instant.now()))
          .isInstanceOf(InboxException.class)
          .hasMessageContaining("The inbox tables are missing or incomplete")
          .hasMessageContaining(dialect().ddlResource());
      connection.rollback();
    }
  }

  /** Instant.MAX means "forget everything", Instant.MIN "forget nothing": no date arithmetic error. */
  @Test
  void purgeWithInstantMaxForgetsEverythingAndWithInstantMinNothing() throws Exception {
    Inbox inbox = Inbox.builder(dataSource).build();
    acceptCommitted(inbox, "orders", "order:1", 5);
    acceptCommitted(inbox, "orders", null, 6);

    assertThat(purgeCommitted(inbox, Instant.MIN)).isZero();
    assertThat(acceptCommitted(inbox, "orders", "order:1", 5)).as("still remembered").isFalse();

    assertThat(purgeCommitted(inbox, Instant.MAX)).isEqualTo(2);
    assertThat(acceptCommitted(inbox, "orders", "order:1", 5)).as("forgotten").isTrue();
    assertThat(acceptCommitted(inbox, "orders", null, 6)).as("forgotten").isTrue();
  }

  /** MariaDB's DATETIME ends with 9999: a later cut-off, which every time stored is before, forgets everything. */
  @Test
  void purgeWithACutOffAfterTheYear9999ForgetsEverything() throws Exception {
    Inbox inbox = Inbox.builder(dataSource).build();
    acceptCommitted(inbox, "orders", "order:1", 5);

    assertThat(purgeCommitted(inbox, Instant.parse("+10000-01-01T00:00:00Z"))).isEqualTo(1);
    assertThat(purgeCommitted(inbox, Instant.parse("-0001-12-31T00:00:00Z"))).isZero();
  }

  @Test
  void purgeRefusesANullCutOffNamingIt() throws Exception {
    Inbox inbox = Inbox.builder(dataSource).build();
    try (Connection connection = transaction()) {
      assertThatThrownBy(() -> inbox.purge(connection, null))
          .isInstanceOf(NullPointerException.class)
          .hasMessageContaining("processedBefore");
    }
  }

  AbstractThrowableAssert<?, ? extends Throwable> assertBuildFails() {
    return assertThatThrownBy(() -> Inbox.builder(dataSource).build())
        .isInstanceOf(InboxException.class)
        .hasMessageContaining(dialect().ddlResource());
  }

  /** SQLite stores any value in any column: it has no sizes to check. */
  void assumeSizedColumns() {
    assumeThat(database()).isNotEqualTo(TestDatabase.SQLITE);
  }

  InboxDialect dialect() {
    return InboxDialect.valueOf(database().name());
  }

  String script() {
    return InboxTestSchema.script(database());
  }

  /** The shipped script without one table constraint ({@code ,\n CONSTRAINT <constraint>}). */
  String without(String constraint) {
    Matcher line = Pattern.compile(",\\s*CONSTRAINT " + Pattern.quote(constraint)).matcher(script());
    assertThat(line.find()).as("the shipped script has CONSTRAINT " + constraint).isTrue();
    return line.replaceFirst("");
  }

  static boolean acceptCommitted(Inbox inbox, DataSource dataSource, String outbox, String groupKey, long id)
      throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      connection.setAutoCommit(false);
      boolean accepted = inbox.accept(connection, new InboxMessage(outbox, groupKey, id));
      connection.commit();
      return accepted;
    }
  }

  boolean acceptCommitted(Inbox inbox, String outbox, String groupKey, long id) throws SQLException {
    return acceptCommitted(inbox, dataSource, outbox, groupKey, id);
  }

  int purgeCommitted(Inbox inbox, Instant cutOff) throws SQLException {
    try (Connection connection = transaction()) {
      int removed = inbox.purge(connection, cutOff);
      connection.commit();
      return removed;
    }
  }

  Connection transaction() throws SQLException {
    Connection connection = dataSource.getConnection();
    connection.setAutoCommit(false);
    return connection;
  }
}
