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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.api.SoftAssertions;
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
   * A quiet outbox whose statistics were taken when nothing was pending (autovacuum's ANALYZE after a
   * drain), then a backlog (a broker outage): the planner expects one pending row, and for one row a
   * bitmap scan of the ready index and a sort cost the same as walking the index in order. With the
   * backlog that bitmap scan fetches every pending row of the partition and sorts them, for each
   * batch of 100: the drain slows down with the square of the backlog (seen in the held-horizon
   * benchmark under auto_explain: 11,000-13,500 rows fetched per read). The read must walk the ready
   * index in id order from its position and stop at its limit, whatever the statistics say: no part
   * of it fetches more rows of the message table than the read's limit and one more.
   */
  @Test
  void a_backlog_after_statistics_of_an_empty_partition_is_read_in_index_order_up_to_the_limit() throws SQLException {
    SoftAssertions softly = new SoftAssertions();
    for (Ordering ordering : Ordering.values()) {
      try (Connection connection = database.connect()) {
        connection.setAutoCommit(false);
        try (Statement statement = connection.createStatement()) {
          statement.execute("INSERT INTO outbox_rules (outbox, ordering_mode, partition_count, layout_version,"
              + " backoff_min_ms, backoff_max_ms, updated_at, updated_by) VALUES ('orders', '" + ordering.name()
              + "', 1, 1, 1000, 60000, now(), 'test')");
          statement.execute("INSERT INTO outbox_partition (outbox, partition_no, fencing_token) VALUES ('orders', 0, 0)");
          // Statistics of a table with pages and no live row (ANALYZE's page and row counts stay after the rollback).
          statement.execute(pending(1, 10_000));
          statement.execute("DELETE FROM outbox_message");
          statement.execute("ANALYZE outbox_message");
          statement.execute(pending(10_001, 30_000));
        }
        BatchStatements.Claim claim = new PostgresBatchSql().claim(connection, "orders", 0, "node", "instance",
            LocalDateTime.of(2026, 12, 3, 12, 0), 0, false);
        assertThat(claim.claimed()).isTrue();
        try (Statement statement = connection.createStatement()) {
          // What the worker's read runs first, in the same round trip (EXPLAIN takes one statement).
          statement.execute(PostgresBatchSql.READ_PLAN_GUARD);
        }
        List<String> plan = new ArrayList<>();
        try (PreparedStatement explain = PostgresBatchSql.preparePostgresqlRead(connection,
            "EXPLAIN (ANALYZE, TIMING OFF) ", "orders", 0, new BatchStatements.ReadRequest(ordering, 0, 100, false),
            LocalDateTime.of(2026, 12, 3, 12, 0));
            ResultSet rows = explain.executeQuery()) {
          while (rows.next()) {
            plan.add(rows.getString(1));
          }
        } finally {
          connection.rollback();
        }
        String text = String.join("\n", plan);
        List<String> scans = plan.stream().filter(line -> line.contains("Scan") && line.contains(" on outbox_message "))
            .toList();
        assertThat(scans).as(ordering + ":\n" + text).isNotEmpty();
        for (String scan : scans) {
          if (scan.contains("(never executed)")) {
            continue;
          }
          Matcher fetched = Pattern.compile("actual rows=(\\d+) loops=(\\d+)").matcher(scan);
          assertThat(fetched.find()).as(scan).isTrue();
          long rows = Long.parseLong(fetched.group(1)) * Long.parseLong(fetched.group(2));
          softly.assertThat(rows).as(ordering + ": rows fetched by\n" + scan + "\nin\n" + text)
              .isLessThanOrEqualTo(101);
        }
      }
    }
    softly.assertAll();
  }

  private static String pending(int from, int to) {
    return "INSERT INTO outbox_message (id, outbox, partition_no, partition_key, group_key, message_type, content_type,"
        + " payload, status, attempts, created_at) SELECT g, 'orders', 0, 0, 'g' || (g % 1000), 'Keyed',"
        + " 'application/json', CAST('{}' AS bytea), 'PENDING', 0, now() FROM generate_series(" + from + ", " + to
        + ") g";
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
