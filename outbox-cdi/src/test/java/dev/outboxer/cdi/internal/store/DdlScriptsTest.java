package dev.outboxer.cdi.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.spi.SqlScripts;
import dev.outboxer.testing.TestDatabase;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The shipped scripts declare the same objects for every database, and the schema check knows them all. */
class DdlScriptsTest {

  @Test
  void every_script_declares_the_tables_sequences_and_indexes_the_schema_check_requires() {
    for (Dialect dialect : Dialect.values()) {
      String ddl = SchemaManager.ddl(dialect);
      assertThat(ddl).as(dialect.name()).contains("CREATE TABLE outbox_message", "CREATE TABLE outbox_partition",
          "CREATE TABLE outbox_rules");
      for (String sequence : SchemaManager.SEQUENCES) {
        // SQLite has no sequences: a counter row each, starting at 0 as the sequences start at 1.
        assertThat(ddl).as(dialect + ": " + sequence).contains(dialect.singleWriter()
            ? "INSERT INTO outbox_sequence (name, last_value) VALUES ('" + sequence + "', 0);"
            : "CREATE SEQUENCE " + sequence + " START WITH 1");
      }
      SchemaManager.tables(dialect).forEach((table, columns) -> columns.forEach(column ->
          assertThat(ddl).as(dialect + ": " + table + "." + column).containsPattern("(?m)^\\s+" + column + "\\s")));
      SchemaManager.INDEXES.forEach(index -> assertThat(ddl).as(dialect + ": " + index).contains(index));
    }
  }

  @Test
  void every_script_splits_into_its_statements() {
    for (TestDatabase database : TestDatabase.values()) {
      List<String> statements = SqlScripts.statements(database.ddl());
      assertThat(statements).as(database.name()).hasSizeGreaterThanOrEqualTo(7)
          .allSatisfy(sql -> assertThat(sql).doesNotContain(";", "--").containsPattern("^(CREATE|INSERT) "));
    }
  }
}
