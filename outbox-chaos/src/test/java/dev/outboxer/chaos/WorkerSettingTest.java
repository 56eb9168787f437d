package dev.outboxer.chaos;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The {@code worker} setting: which program a worker process runs, and what the Quarkus worker refuses. */
class WorkerSettingTest {

  @Test
  void workersRunWorkerMainUnlessTold() {
    assertThat(ChaosSettings.defaults().worker()).isEqualTo("java-se");
    assertThat(ChaosSettings.parse("worker=quarkus").worker()).isEqualTo("quarkus");
  }

  @Test
  void anUnknownWorkerIsRefusedWithTheChoices() {
    assertThatThrownBy(() -> ChaosSettings.parse("worker=wildfly").worker())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("worker=wildfly")
        .hasMessageContaining("java-se")
        .hasMessageContaining("quarkus");
  }

  @Test
  void theQuarkusWorkerRefusesARelayOrDatabaseItDoesNotCarry() {
    assertThatThrownBy(() -> ChaosSettings.parse("worker=quarkus", "relay=kafka").worker())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("relay=kafka");
    assertThatThrownBy(() -> ChaosSettings.parse("worker=quarkus", "database=mariadb").worker())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("database=mariadb");
  }

  @Test
  void aMissingQuarkusApplicationNamesHowToBuildIt() {
    String previous = System.getProperty(QuarkusWorker.JAR_PROPERTY);
    System.setProperty(QuarkusWorker.JAR_PROPERTY, "target/no-such-dir/quarkus-run.jar");
    try {
      assertThatThrownBy(QuarkusWorker::jar)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("no-such-dir/quarkus-run.jar")
          .hasMessageContaining("-pl outbox-chaos-quarkus");
    } finally {
      if (previous == null) {
        System.clearProperty(QuarkusWorker.JAR_PROPERTY);
      } else {
        System.setProperty(QuarkusWorker.JAR_PROPERTY, previous);
      }
    }
  }
}
