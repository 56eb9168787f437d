package dev.outboxer.cdi.internal.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Ordering;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OutboxSettingsTest {

  private static OutboxSettings backoff(Duration min, Duration max) {
    return new OutboxSettings("orders", "jms", Ordering.GROUP, 1, OutboxSettings.UNLIMITED_ATTEMPTS, java.util.List.of(), min, max, false,
        100,
        Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofSeconds(60), Long.MAX_VALUE,
        Duration.ofDays(365), 10_000, null, Duration.ofHours(1), false, Map.of());
  }

  @Test
  void the_retry_delay_doubles_from_the_minimum_and_stops_at_the_maximum() {
    OutboxSettings settings = backoff(Duration.ofMillis(500), Duration.ofSeconds(30));

    assertThat(settings.backoffAfter(1)).isEqualTo(Duration.ofMillis(500));
    assertThat(settings.backoffAfter(2)).isEqualTo(Duration.ofSeconds(1));
    assertThat(settings.backoffAfter(3)).isEqualTo(Duration.ofSeconds(2));
    assertThat(settings.backoffAfter(7)).isEqualTo(Duration.ofSeconds(30)); // 32s capped
    assertThat(settings.backoffAfter(1_000_000)).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void equal_bounds_give_a_constant_delay() {
    OutboxSettings settings = backoff(Duration.ofSeconds(5), Duration.ofSeconds(5));
    assertThat(settings.backoffAfter(1)).isEqualTo(Duration.ofSeconds(5));
    assertThat(settings.backoffAfter(40)).isEqualTo(Duration.ofSeconds(5));
  }
}
