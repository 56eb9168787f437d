package dev.outboxer.cdi.internal.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.OutboxException;
import java.net.ConnectException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;

/** Which start-up failures make Outboxer wait for the database, and which fail the deployment. */
class DatabaseUnreachableTest {

  @Test
  void a_refused_connection_wrapped_by_outboxer_is_unreachable_and_described_by_the_driver_s_exception() {
    SQLException refused = new SQLException("Connection to db:5432 refused.", "08001", new ConnectException("Connection refused"));
    OutboxException wrapped = new OutboxException("Outboxer could not read which database the EntityManager uses", refused);

    assertThat(DatabaseUnreachable.is(wrapped)).isTrue();
    assertThat(DatabaseUnreachable.describe(wrapped)).isEqualTo("java.sql.SQLException: Connection to db:5432 refused.");
  }

  @Test
  void connection_failures_without_a_state_count_too() {
    assertThat(DatabaseUnreachable.is(new IllegalStateException(new ConnectException("Connection refused")))).isTrue();
    assertThat(DatabaseUnreachable.is(new SQLTransientConnectionException("pool exhausted"))).isTrue();
    assertThat(DatabaseUnreachable.is(new SQLException("Sorry, acquisition timeout!"))).isTrue();
    assertThat(DatabaseUnreachable.is(new SQLException("the database system is starting up", "57P03"))).isTrue();
  }

  @Test
  void a_database_that_answered_and_refused_and_configuration_errors_are_not() {
    assertThat(DatabaseUnreachable.is(new SQLException("relation \"outbox_message\" does not exist", "42P01"))).isFalse();
    assertThat(DatabaseUnreachable.is(new SQLException("password authentication failed", "28P01"))).isFalse();
    assertThat(DatabaseUnreachable.is(new OutboxConfigurationException("outbox.schema", "schema missing"))).isFalse();
    assertThat(DatabaseUnreachable.is(new SQLException("canceling statement due to lock timeout", "55P03"))).isFalse();
  }
}
