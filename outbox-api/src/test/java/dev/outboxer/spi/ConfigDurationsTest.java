package dev.outboxer.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The one duration parser of every module's configuration. */
class ConfigDurationsTest {

  @ParameterizedTest
  @CsvSource({
    "500ms, 500",
    "30s, 30000",
    "' 45 S ', 45000",
    "5m, 300000",
    "2h, 7200000",
    "1d, 86400000",
    "PT30S, 30000",
    "pt1m, 60000",
    "0s, 0",
  })
  void accepts_a_number_with_a_unit_and_iso_8601_in_any_case(String text, long millis) {
    assertThat(ConfigDurations.parse(text)).isEqualTo(Duration.ofMillis(millis));
  }

  @ParameterizedTest
  @CsvSource({
    "0, expected a number with a unit",
    "30, expected a number with a unit",
    "soon, expected a number with a unit",
    "PTXS, not a valid ISO-8601 duration",
    "99999999999999999999s, the number is too large",
    "106751991167301d, the number is too large",
  })
  void refuses_anything_else_saying_why(String text, String why) {
    assertThatThrownBy(() -> ConfigDurations.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(why);
  }
}
