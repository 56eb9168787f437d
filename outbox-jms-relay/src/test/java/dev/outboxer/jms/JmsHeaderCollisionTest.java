package dev.outboxer.jms;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Ordering;
import dev.outboxer.spi.MessageConstraints;
import dev.outboxer.spi.RelayContext;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * Two header names that map to one JMS property name would lose one header on the way (the issue 11
 * bad-input table: accepted, then lost). The JMS relay's constraints refuse such a message at
 * publish, naming both headers and the property.
 */
class JmsHeaderCollisionTest {

  private final MessageConstraints constraints = new JmsRelayProvider().constraints(
      new RelayContext("orders", Ordering.GROUP, 1, Duration.ofSeconds(30), Map.of()));

  @ParameterizedTest(name = "{0} and {1}")
  @CsvSource({
      "a.b, a_DOT_b",
      "x-tenant, x_HYPHEN_tenant",
      "a:b, a_x003A_b",
      "a b, a_x0020_b",
  })
  void two_headers_sent_as_one_property_are_refused_naming_both_and_the_property(String one, String other) {
    String refusal = constraints.checkMessage("g", "application/json", 1, Map.of(one, "1", other, "2"));

    assertThat(refusal).isNotNull().contains("'" + one + "'", "'" + other + "'",
        "'" + JmsMessageProperties.forHeader(one) + "'");
  }

  @Test
  void headers_that_map_to_distinct_properties_are_accepted() {
    assertThat(constraints.checkMessage("g", "application/json", 1,
        Map.of("a.b", "1", "a-b", "2", "A.b", "3", "traceparent", "4"))).isNull();
  }
}
