package dev.outboxer.jms;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JmsMessagePropertiesTest {

  private static final Set<String> SELECTOR_WORDS =
      Set.of("NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE");

  @ParameterizedTest
  @CsvSource({
    "traceparent, traceparent",
    "x-tenant, x_HYPHEN_tenant",
    "app.version, app_DOT_version",
    "a:b c, a_x003A_b_x0020_c",
    "3ds, outboxHeader_3ds",
    "JMSType, outboxHeader_JMSType",
    "JMSXGroupID, outboxHeader_JMSXGroupID",
    "_AMQ_DUPL_ID, outboxHeader__AMQ_DUPL_ID",
    "outboxId, outboxHeader_outboxId",
    "and, outboxHeader_and",
    "Null, outboxHeader_Null",
    "'', outboxHeader_",
    "ünïcödé, ünïcödé",
    "$price, $price",
  })
  void mapsHeaderNamesToValidUnreservedJmsIdentifiers(String header, String property) {
    String mapped = JmsMessageProperties.forHeader(header);

    assertThat(mapped).isEqualTo(property);
    assertThat(Character.isJavaIdentifierStart(mapped.charAt(0))).isTrue();
    assertThat(mapped.chars().allMatch(Character::isJavaIdentifierPart)).isTrue();
    assertThat(SELECTOR_WORDS).doesNotContain(mapped.toUpperCase(Locale.ROOT));
    assertThat(mapped).doesNotStartWith("JMS");
  }
}
