package dev.outboxer.jms;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.spi.StandardHeaders;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JmsMessagePropertiesTest {

  private static final Set<String> SELECTOR_WORDS =
      Set.of("NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE");

  @Test
  void theOutboxPropertiesAreTheStandardHeaderNamesInCamelCase() {
    Map<String, String> jmsNames = Map.of(
        StandardHeaders.ID, JmsMessageProperties.OUTBOX_ID,
        StandardHeaders.GROUP_KEY, JmsMessageProperties.OUTBOX_GROUP_KEY,
        StandardHeaders.OUTBOX, JmsMessageProperties.OUTBOX_NAME,
        StandardHeaders.TYPE, JmsMessageProperties.OUTBOX_TYPE,
        StandardHeaders.CONTENT_TYPE, JmsMessageProperties.OUTBOX_CONTENT_TYPE,
        StandardHeaders.PARTITION, JmsMessageProperties.OUTBOX_PARTITION,
        StandardHeaders.FENCING_TOKEN, JmsMessageProperties.OUTBOX_FENCING_TOKEN);

    jmsNames.forEach((header, property) -> assertThat(property).as(header)
        .isEqualTo(camelCase(header)));
  }

  private static String camelCase(String header) {
    StringBuilder name = new StringBuilder();
    for (String part : header.split("-")) {
      name.append(name.length() == 0 ? part
          : Character.toUpperCase(part.charAt(0)) + part.substring(1));
    }
    return name.toString();
  }

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
