package dev.outboxer.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.Ordering;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SettingsReaderTest {

  private static final Setting<Integer> PRIORITY = Setting.integer("priority", 0, 9).withDefault(4);
  private static final Setting<Duration> TTL = Setting.duration("time-to-live", Duration.ZERO, Duration.ofDays(10))
      .withDefault(Duration.ZERO);
  private static final Setting<String> DESTINATION = Setting.jndiName("destination").required();
  private static final Setting<String> PASSWORD = Setting.text("password").secret();
  private static final Setting<String> MODE = Setting.oneOf("delivery-mode", "persistent", "non-persistent")
      .withDefault("persistent");
  private static final SettingsDeclaration DECLARATION = SettingsDeclaration.of("jms relay", "outbox-jms-relay",
      "outbox.<name>.jms.", PRIORITY, TTL, DESTINATION, PASSWORD, MODE);

  private static RelayContext context(Map<String, String> properties) {
    return new RelayContext("orders", Ordering.GROUP, 1, Duration.ofSeconds(30), properties);
  }

  @Test
  void readsTypedValuesAndDefaults() {
    SettingsReader reader = context(Map.of("priority", " 7 ", "destination", "jms/q", "time-to-live", "0"))
        .settings(DECLARATION);
    assertThat(reader.get(PRIORITY)).isEqualTo(7);
    assertThat(reader.get(TTL)).isZero();
    assertThat(reader.get(DESTINATION)).isEqualTo("jms/q");
    assertThat(reader.get(MODE)).isEqualTo("persistent");
    assertThat(reader.optional(PASSWORD)).isEmpty();
    assertThat(reader.problems()).isEmpty();
  }

  @Test
  void reportsEveryProblemAtOnceNamingKeyValueAndWhere() {
    SettingsReader reader = context(Map.of("priority", "12", "time-to-live", "-5s", "delivery-mode", "durable",
        "password", "hunter2x", "destinaton", "jms/q")).settings(DECLARATION);
    reader.get(PRIORITY);
    reader.get(TTL);
    reader.get(DESTINATION);
    reader.get(MODE);
    reader.problem(PASSWORD, "is too short: use 12 characters or more");
    List<String> messages = reader.problems().stream().map(Throwable::getMessage).toList();
    assertThat(messages).containsExactly(
        "outbox.orders.jms.destinaton is not a setting of the jms relay of outbox 'orders'. Did you mean"
            + " outbox.orders.jms.destination? Known keys under outbox.orders.jms.: [delivery-mode, destination,"
            + " password, priority, time-to-live]",
        "outbox.orders.jms.priority=12 is out of range: use a number from 0 to 9 (jms relay of outbox 'orders')",
        "outbox.orders.jms.time-to-live=-5s is not a duration: expected " + ConfigDurations.ACCEPTED
            + " (jms relay of outbox 'orders')",
        "outbox.orders.jms.destination is not set: the jms relay of outbox 'orders' needs it",
        "outbox.orders.jms.delivery-mode=durable is not valid: use persistent or non-persistent (jms relay of outbox"
            + " 'orders')",
        "outbox.orders.jms.password=(hidden) is too short: use 12 characters or more (jms relay of outbox 'orders')");
    assertThat(reader.problems().get(1).key()).isEqualTo("outbox.orders.jms.priority");
    assertThatThrownBy(reader::throwIfAny).isInstanceOf(OutboxConfigurationException.class)
        .satisfies(thrown -> assertThat(thrown.getSuppressed()).hasSize(5));
  }

  @Test
  void aProblemCanShowItsOwnValueButNeverASecretThatIsSet() {
    SettingsReader reader = context(Map.of("destination", "https://user:pw@host/q", "password", "hunter2x"))
        .settings(DECLARATION);
    reader.problem(DESTINATION, "https://(hidden)@host/q", "holds user info: remove it");
    reader.problem(PRIORITY, "(not set)", "is required when destination is set: set it");
    reader.problem(PASSWORD, "hunter2x", "is wrong");
    assertThat(reader.problems()).extracting(Throwable::getMessage).containsExactly(
        "outbox.orders.jms.destination=https://(hidden)@host/q holds user info: remove it (jms relay of outbox"
            + " 'orders')",
        "outbox.orders.jms.priority=(not set) is required when destination is set: set it (jms relay of outbox"
            + " 'orders')",
        "outbox.orders.jms.password=(hidden) is wrong (jms relay of outbox 'orders')");
    SettingsReader unset = context(Map.of()).settings(DECLARATION);
    unset.problem(PASSWORD, "(not set)", "is required");
    assertThat(unset.problems()).extracting(Throwable::getMessage)
        .containsExactly("outbox.orders.jms.password=(not set) is required (jms relay of outbox 'orders')");
  }

  @Test
  void findsKeysSetAsEnvironmentVariablesAndNamesMisspeltOnesAsWritten() {
    SettingsReader reader = context(Map.of("DELIVERY_MODE", "non-persistent", "DESTINATON", "jms/q"))
        .settings(DECLARATION);
    assertThat(reader.get(MODE)).isEqualTo("non-persistent");
    assertThat(reader.problems()).singleElement().extracting(Throwable::getMessage).asString()
        .startsWith("OUTBOX_ORDERS_JMS_DESTINATON is not a setting of the jms relay of outbox 'orders'. Did you mean"
            + " OUTBOX_ORDERS_JMS_DESTINATION?");
  }

  @Test
  void aBadValueSetAsAnEnvironmentVariableIsNamedAsTheVariable() {
    SettingsReader reader = context(Map.of("PRIORITY", "12", "destination", "jms/q")).settings(DECLARATION);
    reader.get(PRIORITY);
    assertThat(reader.problems()).singleElement().extracting(Throwable::getMessage).asString()
        .startsWith("OUTBOX_ORDERS_JMS_PRIORITY=12 is out of range");
    assertThat(reader.problems().get(0)).extracting(problem -> ((OutboxConfigurationException) problem).key())
        .isEqualTo("outbox.orders.jms.priority");
  }

  @Test
  void readsAnAddOnsKeysFromConfigWithEnvironmentVariables() {
    Setting<Duration> stall = Setting.duration("worker-stall", Duration.ofDays(1)).withDefault(Duration.ofSeconds(60));
    SettingsDeclaration health = SettingsDeclaration.of("health checks", "outbox-health", "outbox.health.", stall);
    Map<String, String> config = Map.of("OUTBOX_HEALTH_WORKER_STALL", "90s", "OUTBOX_HEALTH_WORKER_STAL", "1s",
        "outbox.health.worker.stal", "1s");
    SettingsReader reader = SettingsReader.fromConfig(health, null,
        key -> Optional.ofNullable(config.get(key)).or(() -> Optional.ofNullable(config.get(
            ConfigKeyNames.environmentName(key)))), config.keySet());
    assertThat(reader.problems()).singleElement().extracting(Throwable::getMessage).asString()
        .startsWith("OUTBOX_HEALTH_WORKER_STAL is not a setting of the health checks. Did you mean"
            + " OUTBOX_HEALTH_WORKER_STALL?");
    assertThat(reader.get(stall)).isEqualTo(Duration.ofSeconds(90));
  }

  @Test
  void passesThroughAClientLibrarysOwnKeys() {
    SettingsDeclaration kafka = SettingsDeclaration.of("kafka relay", "outbox-kafka-relay", "outbox.<name>.kafka.",
        Setting.text("topic")).passingThrough("any producer property", List.of("acks", "linger.ms"));
    SettingsReader reader = context(Map.of("topic", "t", "ACKS", "all", "lingr.ms", "5")).settings(kafka);
    assertThat(reader.passedThrough()).containsExactly(Map.entry("acks", "all"));
    assertThat(reader.problems()).singleElement().extracting(Throwable::getMessage).asString()
        .contains("outbox.orders.kafka.lingr.ms is not a setting");
  }

  @Test
  void suggestsAKeyPassedThroughAndSaysWhatElseIsAccepted() {
    SettingsDeclaration kafka = SettingsDeclaration.of("kafka relay", "outbox-kafka-relay", "outbox.<name>.kafka.",
        Setting.text("topic")).passingThrough("any producer property", List.of("acks", "linger.ms"));
    SettingsReader reader = context(Map.of("topic", "t", "lingr.ms", "5")).settings(kafka);
    assertThat(reader.problems()).singleElement().extracting(Throwable::getMessage).isEqualTo(
        "outbox.orders.kafka.lingr.ms is not a setting of the kafka relay of outbox 'orders'. Did you mean"
            + " outbox.orders.kafka.linger.ms? Known keys under outbox.orders.kafka.: [topic] and any producer property");
  }

  @Test
  void reportsAValueOfAKeyPassedThroughNamingKeyAndValueOrHidingIt() {
    SettingsDeclaration kafka = SettingsDeclaration.of("kafka relay", "outbox-kafka-relay", "outbox.<name>.kafka.",
        Setting.text("topic")).passingThrough("any producer property", List.of("acks", "ssl.key.password"));
    SettingsReader reader = context(Map.of("topic", "t", "ACKS", "1", "ssl.key.password", "s3cret")).settings(kafka);
    reader.passedThroughProblem("acks", false, "must be all: remove it");
    reader.passedThroughProblem("ssl.key.password", true, "is refused");
    assertThat(reader.problems()).extracting(Throwable::getMessage).containsExactly(
        "outbox.orders.kafka.acks=1 must be all: remove it (kafka relay of outbox 'orders')",
        "outbox.orders.kafka.ssl.key.password=(hidden) is refused (kafka relay of outbox 'orders')");
    assertThat(reader.problems().get(0).key()).isEqualTo("outbox.orders.kafka.acks");
    assertThatThrownBy(() -> reader.passedThroughProblem("topic", false, "x"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void everyTypeRefusesWhatItCannotReadInTheSameWords() {
    assertThat(refusal(Setting.integer("n", 1, 10), "x")).isEqualTo("is not a number: use a whole number from 1 to 10");
    assertThat(refusal(Setting.integer("n", 1, 10), "99999999999")).isEqualTo("is out of range: use a number from 1 to 10");
    assertThat(refusal(Setting.duration("d", Duration.ofDays(1)), "0s")).isEqualTo("must be longer than zero");
    assertThat(refusal(Setting.duration("d", Duration.ofDays(1)), "2d")).isEqualTo("is too long: the limit is 1d");
    assertThat(refusal(Setting.duration("d", Duration.ofDays(1)), "PT0.0005S"))
        .startsWith("is not a whole number of milliseconds");
    assertThat(refusal(Setting.size("s", 1, 1 << 20), "2MB")).isEqualTo("is out of range: use 1 to 1MB");
    assertThat(refusal(Setting.size("s", 1, 1 << 20), "lots")).startsWith("is not a size");
    assertThat(refusal(Setting.bool("b"), "yes")).isEqualTo("is not a boolean: use true or false");
    assertThat(refusal(Setting.list("l"), "a,,b")).startsWith("has an empty element");
    assertThat(refusal(Setting.text("t").withDefault("x"), "  ")).isEqualTo("is blank: remove the key for the default"
        + " (x) or give it a value");
    assertThat(Setting.size("s", 1, 1 << 30).parse("512kb")).isEqualTo(512 * 1024L);
    assertThat(Setting.list("l").parse(" a , b")).isEqualTo(Arrays.asList("a", "b"));
    assertThat(CoreSettings.ORDERING.parse("TOTAL")).isEqualTo(Ordering.TOTAL);
    assertThat(refusal(CoreSettings.ORDERING, "random")).isEqualTo("is not an ordering mode: use group, total or none");
    assertThat(refusal(CoreSettings.WORKER, "threads")).isEqualTo("is not a worker mode: use executor, ejb-timer or none");
  }

  @Test
  void declarationsRefuseTwoSettingsOfOneKey() {
    assertThatThrownBy(() -> SettingsDeclaration.of("x", "x", "outbox.x.", Setting.text("a"), Setting.bool("a")))
        .hasMessageContaining("outbox.x.a is declared twice");
  }

  @Test
  void aReaderRefusesASettingItsDeclarationDoesNotHave() {
    SettingsReader reader = context(Map.of()).settings(DECLARATION);
    assertThatThrownBy(() -> reader.get(Setting.text("other"))).isInstanceOf(IllegalArgumentException.class);
  }

  private static String refusal(Setting<?> setting, String value) {
    try {
      setting.parse(value);
    } catch (IllegalArgumentException refused) {
      return refused.getMessage();
    }
    throw new AssertionError(value + " was accepted");
  }
}
