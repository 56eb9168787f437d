package dev.outboxer.cdi.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Ordering;
import dev.outboxer.spi.SqlScripts;
import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shape of the PostgreSQL batch read's plan, independent of planner statistics. The read's
 * retry part ({@code CTE w}: the partition's messages that wait for a retry, few) must never be
 * answered by walking the partition's backlog: with a million pending rows that walk cost 347 ms
 * per batch (benchmark row 7) when stale statistics let the planner choose the ready index for it.
 * The schema makes that plan impossible rather than unlikely: the ready index holds only rows
 * without a retry time, so it cannot answer a question about rows with one.
 */
class PostgresReadPlanTest {

  private static EmptyDatabase database;

  @BeforeAll
  static void createSchema() {
    database = EmptyDatabase.create(TestDatabase.POSTGRESQL, "read_plan");
    database.execute(SqlScripts.statements(SchemaManager.ddl(Dialect.POSTGRESQL)));
  }

  @AfterAll
  static void dropDatabase() {
    if (database != null) {
      database.close();
    }
  }

  @Test
  void no_plan_can_answer_the_retry_part_of_the_read_from_the_ready_index() throws SQLException {
    for (Ordering ordering : Ordering.values()) {
      List<String> plan = planWithout("outbox_message_retry_idx", ordering);
      List<String> retryPart = subplan(plan, "CTE w");
      assertThat(retryPart).as(ordering + ": the retry part of\n" + String.join("\n", plan)).isNotEmpty()
          .noneMatch(line -> line.contains("outbox_message_ready_idx"));
    }
  }

  @Test
  void the_scan_for_fresh_messages_reads_the_ready_index_and_the_retry_part_its_own() throws SQLException {
    for (Ordering ordering : Ordering.values()) {
      List<String> plan = planWithout(null, ordering);
      String text = String.join("\n", plan);
      assertThat(subplan(plan, "CTE w")).as(ordering + ":\n" + text)
          .anyMatch(line -> line.contains("outbox_message_retry_idx"));
      assertThat(text).as(ordering.name()).contains("outbox_message_ready_idx");
    }
  }

  /**
   * EXPLAIN of the read, sequential scans and bitmap scans priced out so that any usable index is
   * chosen, with {@code droppedIndex} dropped inside a transaction that is rolled back.
   */
  private static List<String> planWithout(String droppedIndex, Ordering ordering) throws SQLException {
    try (Connection connection = database.connect()) {
      connection.setAutoCommit(false);
      try (Statement statement = connection.createStatement()) {
        if (droppedIndex != null) {
          statement.execute("DROP INDEX " + droppedIndex);
        }
        statement.execute("SET LOCAL enable_seqscan = off");
        statement.execute("SET LOCAL enable_bitmapscan = off");
        List<String> plan = new ArrayList<>();
        try (PreparedStatement explain = PostgresBatchSql.preparePostgresqlRead(connection, "EXPLAIN ", "orders", 0,
            new BatchStatements.ReadRequest(ordering, 0, 100, true), LocalDateTime.of(2026, 12, 3, 12, 0));
            ResultSet rows = explain.executeQuery()) {
          while (rows.next()) {
            plan.add(rows.getString(1));
          }
        }
        return plan;
      } finally {
        connection.rollback();
      }
    }
  }

  /** The lines of the plan node titled {@code title} and everything indented below it. */
  private static List<String> subplan(List<String> plan, String title) {
    List<String> lines = new ArrayList<>();
    int indent = -1;
    for (String line : plan) {
      int lineIndent = line.length() - line.stripLeading().length();
      if (indent < 0) {
        if (line.strip().equals(title)) {
          indent = lineIndent;
        }
      } else if (lineIndent > indent) {
        lines.add(line);
      } else {
        break;
      }
    }
    return lines;
  }
}
