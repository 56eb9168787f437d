package dev.outboxer.cdi.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.BatchUpdateException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * A batch's failure as the JDBC drivers report it: a {@link BatchUpdateException} whose own state
 * says little, with the database's error chained as its next exception (JDBC's
 * {@code getNextException}) rather than as its cause. A deadlock there is a deadlock all the same:
 * the admin operation runs its chunk again.
 */
class SqlDeadlockTest {

  @Test
  void a_deadlock_chained_as_a_batchs_next_exception_is_a_deadlock() {
    BatchUpdateException batch = new BatchUpdateException("Batch entry 3 was aborted: call getNextException", null,
        0, new int[] {1, 1, 1}, null);
    batch.setNextException(new SQLException("ERROR: deadlock detected", "40P01"));
    assertThat(Sql.isDeadlock(new RuntimeException("admin operation failed", batch))).as("PostgreSQL's 40P01")
        .isTrue();
    assertThat(Sql.isTransient(batch)).as("transient").isTrue();
  }

  @Test
  void mariadbs_deadlock_code_chained_as_a_batchs_next_exception_is_a_deadlock() {
    BatchUpdateException batch = new BatchUpdateException("batch failed", "HY000", 0, new int[0], null);
    batch.setNextException(new SQLException("Deadlock found when trying to get lock", "40001", 1213));
    assertThat(Sql.isDeadlock(batch)).as("MariaDB's 1213").isTrue();
  }

  @Test
  void a_batch_that_failed_for_another_reason_is_no_deadlock() {
    BatchUpdateException batch = new BatchUpdateException("batch failed", "23505", 0, new int[0], null);
    batch.setNextException(new SQLException("duplicate key", "23505"));
    assertThat(Sql.isDeadlock(batch)).isFalse();
    assertThat(Sql.isTransient(batch)).isFalse();
  }
}
