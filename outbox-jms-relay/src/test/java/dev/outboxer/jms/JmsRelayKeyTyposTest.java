package dev.outboxer.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import jakarta.enterprise.inject.spi.DeploymentException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Typos in the JMS relay's keys are reported in the same failed deployment as problems with the
 * outbox's own keys, not one deployment later, when those are fixed.
 */
class JmsRelayKeyTyposTest {

  private static OutboxTestContainer.Builder deployment(Map<String, String> config) {
    return OutboxTestContainer.builder(TestDatabase.H2)
        .config("outbox.orders.relay", "jms")
        .config(config)
        .beans(JmsRelayProvider.class);
  }

  @Test
  void a_misspelt_outbox_key_and_a_misspelt_relay_key_are_reported_together() {
    assertThatThrownBy(() -> deployment(Map.of(
            "outbox.orders.partiton", "4",
            "outbox.orders.jms.destinaton", "jms/orders")).start().close())
        .isInstanceOf(DeploymentException.class)
        .hasStackTraceContaining("outbox.orders.partiton is not a key Outboxer knows")
        .hasStackTraceContaining("outbox.orders.jms.destinaton is not a setting of the jms relay of outbox 'orders'."
            + " Did you mean outbox.orders.jms.destination?");
  }

  /** A bad value leaves the outbox without settings; its relay keys are still checked. */
  @Test
  void a_bad_outbox_value_and_a_misspelt_relay_key_are_reported_together() {
    assertThatThrownBy(() -> deployment(Map.of(
            "outbox.orders.partitions", "zero",
            "outbox.orders.jms.destination", "jms/orders",
            "outbox.orders.jms.priorty", "9")).start().close())
        .isInstanceOf(DeploymentException.class)
        .hasStackTraceContaining("outbox.orders.partitions=zero is not a number")
        .hasStackTraceContaining("outbox.orders.jms.priorty is not a setting of the jms relay");
  }

  /**
   * Issue 27: a relay's problems were reported twice, each also suppressed inside the other, and the trace ended in
   * "[CIRCULAR REFERENCE: ...]".
   */
  @Test
  void each_problem_of_a_relay_is_reported_once() {
    Throwable thrown = catchThrowable(() -> deployment(Map.of(
        "outbox.orders.jms.destinaton", "jms/orders",
        "outbox.orders.jms.priority", "12")).start().close());
    StringWriter trace = new StringWriter();
    thrown.printStackTrace(new PrintWriter(trace));

    assertThat(trace.toString()).doesNotContain("CIRCULAR REFERENCE");
    // The container lists each problem once (and prints that list twice: in its message and as suppressed).
    assertThat(thrown.getSuppressed()).extracting(Throwable::getMessage)
        .filteredOn(message -> message.contains("outbox.orders.jms.")).hasSize(3).doesNotHaveDuplicates();
    assertThat(thrown.getSuppressed()).allSatisfy(problem -> assertThat(problem.getSuppressed()).isEmpty());
    assertThat(occurrences(trace.toString(), "outbox.orders.jms.priority=12 is out of range")).isEqualTo(2);
  }

  private static int occurrences(String text, String part) {
    int count = 0;
    for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
      count++;
    }
    return count;
  }

  @Test
  void a_misspelt_relay_name_is_reported_with_the_other_problems() {
    assertThatThrownBy(() -> deployment(Map.of(
            "outbox.orders.relay", "jsm",
            "outbox.orders.partitions", "zero",
            "outbox.orders.jms.destination", "jms/orders")).start().close())
        .isInstanceOf(DeploymentException.class)
        .hasStackTraceContaining("outbox.orders.partitions=zero is not a number")
        .hasStackTraceContaining("outbox.orders.relay=jsm names no relay. Did you mean jms?");
  }
}
