package dev.outboxer.cdi.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * What every database's {@link DialectSql} must agree on without a database; the contract tests of
 * each database ({@code *ContractTest}, {@code *PublishTest}, {@code *Admin*Test}) run the statements.
 */
class DialectSqlTest {

  @Test
  void every_publish_insert_takes_the_nine_common_parameters_and_the_lock_key_only_where_it_locks_the_group() {
    for (Dialect dialect : Dialect.values()) {
      DialectSql sql = dialect.sql();
      assertThat(placeholders(sql.insertMessage(false))).as(dialect + " without serialize-writes").isEqualTo(9);
      assertThat(placeholders(sql.insertMessage(true))).as(dialect + " with serialize-writes")
          .isEqualTo(sql.groupLockInInsert() ? 10 : 9);
      assertThat(sql.insertMessage(true)).as(dialect + ": the columns are the common ones")
          .contains("INSERT INTO outbox_message " + PublishStatements.COLUMNS);
    }
  }

  @Test
  void the_insert_takes_the_group_lock_itself_exactly_where_the_database_has_advisory_locks() {
    for (Dialect dialect : Dialect.values()) {
      assertThat(dialect.sql().groupLockInInsert()).as(dialect.name()).isEqualTo(dialect.advisoryLocks());
    }
  }

  @Test
  void a_lock_wait_prefix_bounds_the_wait_in_whole_seconds_and_at_least_one() {
    assertThat(Dialect.MARIADB.sql().lockWaitPrefix(Duration.ofMillis(300)))
        .isEqualTo("SET STATEMENT innodb_lock_wait_timeout = 1 FOR ");
    assertThat(Dialect.MARIADB.sql().lockWaitPrefix(Duration.ofSeconds(10)))
        .isEqualTo("SET STATEMENT innodb_lock_wait_timeout = 10 FOR ");
    for (Dialect dialect : new Dialect[] {Dialect.POSTGRESQL, Dialect.H2, Dialect.SQLITE}) {
      assertThat(dialect.sql().lockWaitPrefix(Duration.ofSeconds(10))).as(dialect.name()).isEmpty();
    }
  }

  @Test
  void times_are_read_as_text_on_mariadb_only() {
    for (Dialect dialect : Dialect.values()) {
      assertThat(dialect.sql().readTime("created_at")).as(dialect.name())
          .isEqualTo(dialect == Dialect.MARIADB ? "CAST(created_at AS CHAR)" : "created_at");
    }
  }

  private static long placeholders(String sql) {
    return sql.chars().filter(c -> c == '?').count();
  }
}
