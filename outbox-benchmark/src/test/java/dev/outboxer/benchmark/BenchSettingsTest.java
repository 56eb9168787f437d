package dev.outboxer.benchmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.testing.TestDatabase;
import java.util.EnumSet;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class BenchSettingsTest {

  @Test
  void the_quick_profile_drains_up_to_100k_and_the_full_one_up_to_1m() {
    BenchSettings quick = BenchSettings.from(properties());
    BenchSettings full = BenchSettings.from(properties("bench.profile", "full"));

    assertThat(quick.growth()).containsExactly(10_000, 100_000);
    assertThat(full.growth()).containsExactly(10_000, 100_000, 1_000_000);
    assertThat(quick.rounds()).isEqualTo(3);
    assertThat(quick.groups()).isEqualTo(1_000);
    assertThat(quick.batchSize()).isEqualTo(100);
    assertThat(quick.backlog()).isEqualTo(20_000);
    assertThat(quick.database()).isEqualTo(TestDatabase.POSTGRESQL);
    assertThat(quick.rows()).isEqualTo(EnumSet.allOf(Row.class));
  }

  @Test
  void rows_are_chosen_by_number_or_name_and_overrides_win_over_the_profile() {
    BenchSettings settings = BenchSettings.from(properties("bench.rows", "1, latency,7", "bench.db", "mariadb",
        "bench.rounds", "5", "bench.growth", "500,100"));

    assertThat(settings.rows()).containsExactlyInAnyOrder(Row.DRAIN_1, Row.LATENCY, Row.MEMORY);
    assertThat(settings.database()).isEqualTo(TestDatabase.MARIADB);
    assertThat(settings.rounds()).isEqualTo(5);
    assertThat(settings.growth()).isEqualTo(List.of(100, 500));
  }

  @Test
  void a_bad_value_names_the_key_the_value_and_what_would_do() {
    assertThatThrownBy(() -> BenchSettings.from(properties("bench.rows", "1,lag")))
        .hasMessage("bench.rows=1,lag: 'lag' is not a row; use numbers or names from [1=drain, 2=drain4, 3=growth,"
            + " 4=publish, 5=latency, 6=poison, 7=memory, 8=contention] separated by commas, or all");
    assertThatThrownBy(() -> BenchSettings.from(properties("bench.profile", "fast")))
        .hasMessageStartingWith("bench.profile=fast is not a profile: use quick");
    assertThatThrownBy(() -> BenchSettings.from(properties("bench.rounds", "three")))
        .hasMessage("bench.rounds=three is not a whole number: write it in digits, for example bench.rounds=3");
    assertThatThrownBy(() -> BenchSettings.from(properties("bench.rounds", "0")))
        .hasMessage("bench.rounds=0 is out of range: it must be at least 1");
    assertThatThrownBy(() -> BenchSettings.from(properties("bench.db", "oracle")))
        .hasMessage("bench.db=oracle is not supported: use postgresql or mariadb");
  }

  private static Properties properties(String... pairs) {
    Properties properties = new Properties();
    for (int i = 0; i < pairs.length; i += 2) {
      properties.setProperty(pairs[i], pairs[i + 1]);
    }
    return properties;
  }
}
