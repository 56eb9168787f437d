package dev.outboxer.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** The extension creates Outboxer's schema where it is missing, and leaves one that is there alone. */
class SchemaSetupTest {

  @Test
  void an_empty_database_gets_outboxers_schema_from_the_shipped_script() throws SQLException {
    JdbcTarget empty = JdbcTarget.of("jdbc:h2:mem:testkit_schema_empty;DB_CLOSE_DELAY=-1", "sa", "");

    assertThat(SchemaSetup.createIfMissing(empty)).isTrue();

    assertThat(tables(empty)).contains("OUTBOX_MESSAGE", "OUTBOX_PARTITION", "OUTBOX_RULES", "OUTBOX_GROUP_LOCK");
  }

  @Test
  void a_schema_that_is_there_is_not_created_again_and_keeps_its_rows() throws SQLException {
    JdbcTarget existing = JdbcTarget.of("jdbc:h2:mem:testkit_schema_existing;DB_CLOSE_DELAY=-1", "sa", "");
    SchemaSetup.createIfMissing(existing);
    try (Connection connection = existing.connect(); Statement statement = connection.createStatement()) {
      statement.execute("INSERT INTO outbox_partition (outbox, partition_no, fencing_token) VALUES ('kept', 0, 7)");
    }

    assertThat(SchemaSetup.createIfMissing(existing)).isFalse();

    try (Connection connection = existing.connect(); Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT fencing_token FROM outbox_partition WHERE outbox = 'kept'")) {
      assertThat(rows.next()).isTrue();
      assertThat(rows.getLong(1)).isEqualTo(7);
    }
  }

  private static java.util.List<String> tables(JdbcTarget target) throws SQLException {
    java.util.List<String> names = new java.util.ArrayList<>();
    try (Connection connection = target.connect();
        ResultSet rows = connection.getMetaData().getTables(null, "PUBLIC", "%", new String[] {"TABLE"})) {
      while (rows.next()) {
        names.add(rows.getString("TABLE_NAME"));
      }
    }
    return names;
  }
}
