package dev.outboxer.postgresql;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import javax.transaction.xa.XAException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which failures become XAER_RMFAIL, and that every other one is passed on as it is. */
class ErrorMappingTest {

  @ParameterizedTest(name = "{0} with code {1} -> {2}")
  @CsvSource({
      // the session ended: retryable
      "57P01, -3, -7", "57P02, -3, -7", "57P03, -3, -7", "08006, -3, -7", "08003, -3, -7", "08P01, -6, -7",
      // already RMFAIL
      "08006, -7, -7",
      // anything else is the driver's answer
      "42704, -4, -4", "23505, 103, 103", "42601, -3, -3", "40001, -3, -3", "57014, -3, -3"})
  void mapsTheLostSessionOnly(String sqlState, int code, int expected) {
    XAException failure = new XAException("Error committing prepared transaction");
    failure.errorCode = code;
    failure.initCause(new SQLException("FATAL: terminating connection due to administrator command", sqlState));

    XAException mapped = RecoverablePGXAConnection.recoverable(failure);

    assertThat(mapped.errorCode).isEqualTo(expected);
    if (expected == code) {
      assertThat(mapped).isSameAs(failure);
    } else {
      assertThat(mapped.getCause()).isSameAs(failure);
      assertThat(mapped.getMessage()).contains("SQLSTATE " + sqlState).contains("XAER_RMFAIL");
    }
  }

  @ParameterizedTest(name = "no SQLException: {0}")
  @CsvSource({"-3", "-6"})
  void leavesFailuresWithoutASqlStateAlone(int code) {
    XAException failure = new XAException(code);
    failure.initCause(new IllegalStateException("not SQL"));
    assertThat(RecoverablePGXAConnection.recoverable(failure)).isSameAs(failure);
  }

  @ParameterizedTest(name = "nested: {0}")
  @CsvSource({"57P01"})
  void findsTheStateDeeperInTheChain(String sqlState) {
    SQLException inner = new SQLException("FATAL: terminating connection due to administrator command", sqlState);
    XAException failure = new XAException(XAException.XAER_RMERR);
    failure.initCause(new RuntimeException(new SQLException("wrapped", "XX000", inner)));
    assertThat(RecoverablePGXAConnection.recoverable(failure).errorCode).isEqualTo(XAException.XAER_RMFAIL);
  }

}
