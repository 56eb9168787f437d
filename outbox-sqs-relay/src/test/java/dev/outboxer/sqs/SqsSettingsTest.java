package dev.outboxer.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.Ordering;
import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.spi.Setting;
import dev.outboxer.spi.SettingsCatalog;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** Every {@code outbox.<name>.sqs.*} key: defaults, accepted values, and each refusal. */
class SqsSettingsTest {

  private static final String AWS_QUEUE =
      "https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo";

  private static RelayContext context(Ordering ordering, Duration relayTimeout,
      Map<String, String> properties) {
    return new RelayContext("orders", ordering, 4, relayTimeout, properties);
  }

  /** A FIFO queue on AWS plus the given keys and values. */
  private static RelayContext context(String... keyValues) {
    Map<String, String> properties = new HashMap<>();
    properties.put("queue-url", AWS_QUEUE);
    for (int i = 0; i < keyValues.length; i += 2) {
      if (keyValues[i + 1] == null) {
        properties.remove(keyValues[i]);
      } else {
        properties.put(keyValues[i], keyValues[i + 1]);
      }
    }
    return context(Ordering.GROUP, Duration.ofSeconds(30), properties);
  }

  private static List<String> allMessages(Throwable failure) {
    List<String> messages = new ArrayList<>();
    messages.add(failure.getMessage());
    Stream.of(failure.getSuppressed()).map(Throwable::getMessage).forEach(messages::add);
    return messages;
  }

  @Test
  void a_queue_url_on_aws_is_enough_and_every_other_key_has_its_default() {
    SqsSettings settings = SqsSettings.from(context());

    assertThat(settings.queueUrl()).contains(URI.create(AWS_QUEUE));
    assertThat(settings.queueName()).isEqualTo("orders.fifo");
    assertThat(settings.fifo()).isTrue();
    assertThat(settings.region()).as("from the queue URL's host").contains("eu-west-1");
    assertThat(settings.endpoint()).as("the region's AWS endpoint").isEmpty();
    assertThat(settings.accessKeyId()).as("the SDK's default chain").isEmpty();
    assertThat(settings.ungroupedGroupIds()).hasSize(10)
        .startsWith("outbox-ungrouped-0").endsWith("outbox-ungrouped-9");
    assertThat(settings.totalGroupId()).isEqualTo("orders");
    assertThat(settings.deduplicationIdPrefix()).isEmpty();
    assertThat(settings.batchSize()).isEqualTo(10);
    assertThat(settings.maxMessageSize()).isEqualTo(262_144);
    assertThat(settings.apiCallTimeout()).isEqualTo(Duration.ofMillis(22_500));
    assertThat(settings.attemptTimeout()).isEqualTo(Duration.ofMillis(7_500));
    assertThat(settings.connectTimeout()).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void a_queue_url_outside_aws_is_also_the_endpoint() {
    SqsSettings settings = SqsSettings.from(context(
        "queue-url", "http://localhost:9324/000000000000/orders.fifo", "region", "elasticmq"));

    assertThat(settings.endpoint()).contains(URI.create("http://localhost:9324"));
    assertThat(settings.region()).contains("elasticmq");
    assertThatThrownBy(() -> SqsSettings.from(context(
            "queue-url", "http://localhost:9324/000000000000/orders.fifo", "region", "Local_1")))
        .hasMessageStartingWith("outbox.orders.sqs.region=Local_1 is not a region name"
            + " (lower-case letters, digits and '-')");
  }

  @Test
  void every_key_accepts_a_valid_value() {
    SqsSettings settings = SqsSettings.from(context(Ordering.TOTAL, Duration.ofSeconds(30),
        Map.ofEntries(
            Map.entry("queue-name", "orders.fifo"),
            Map.entry("region", "eu-central-2"),
            Map.entry("endpoint", "https://vpce-123.sqs.eu-central-2.vpce.amazonaws.com"),
            Map.entry("access-key-id", "AKIDEXAMPLE"),
            Map.entry("secret-access-key", "wJalrXUtnFEMI"),
            Map.entry("session-token", "token"),
            Map.entry("ungrouped-group-ids", "u-1, u-2,u-3"),
            Map.entry("total-group-id", "all-orders"),
            Map.entry("deduplication-id-prefix", "eu-db-"),
            Map.entry("batch-size", "4"),
            Map.entry("max-message-size", "1048576"),
            Map.entry("api-call-timeout", "20s"),
            Map.entry("api-call-attempt-timeout", "PT5S"),
            Map.entry("connect-timeout", "500ms"))));

    assertThat(settings.queueUrl()).isEmpty();
    assertThat(settings.queueName()).isEqualTo("orders.fifo");
    assertThat(settings.queueSetting()).isEqualTo("outbox.orders.sqs.queue-name=orders.fifo");
    assertThat(settings.region()).contains("eu-central-2");
    assertThat(settings.endpoint())
        .contains(URI.create("https://vpce-123.sqs.eu-central-2.vpce.amazonaws.com"));
    assertThat(settings.accessKeyId()).contains("AKIDEXAMPLE");
    assertThat(settings.secretAccessKey()).contains("wJalrXUtnFEMI");
    assertThat(settings.sessionToken()).contains("token");
    assertThat(settings.ungroupedGroupIds()).containsExactly("u-1", "u-2", "u-3");
    assertThat(settings.totalGroupId()).isEqualTo("all-orders");
    assertThat(settings.deduplicationIdPrefix()).isEqualTo("eu-db-");
    assertThat(settings.batchSize()).isEqualTo(4);
    assertThat(settings.maxMessageSize()).isEqualTo(1_048_576);
    assertThat(settings.apiCallTimeout()).isEqualTo(Duration.ofSeconds(20));
    assertThat(settings.attemptTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(settings.connectTimeout()).isEqualTo(Duration.ofMillis(500));
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource(delimiter = '|', value = {
    "queue-url | not a url | is not a queue URL",
    "queue-url | ftp://sqs.eu-west-1.amazonaws.com/123/orders.fifo | is not a queue URL",
    "queue-url | https://sqs.eu-west-1.amazonaws.com/ | is not a queue URL",
    "queue-url | https://sqs.eu-west-1.amazonaws.com/123/orders.fifo?x=1 | is not a queue URL",
    "queue-url | https://sqs.eu-west-1.amazonaws.com/123/orders$.fifo | does not name a valid SQS queue: 'orders$.fifo'",
    "region | Europe | is not an AWS region name such as eu-west-1",
    "region | us-east-1 | differs from the region of outbox.orders.sqs.queue-url (eu-west-1)",
    "endpoint | localhost:9324 | is not an endpoint URL",
    "endpoint | http://localhost:9324/queue | is not an endpoint URL",
    "endpoint | http://localhost:99999 | is not an endpoint URL",
    "endpoint | http://localhost:0 | is not an endpoint URL",
    "queue-url | http://localhost:65536/000000000000/orders.fifo | is not a queue URL",
    "ungrouped-group-ids | a,,b | has an empty element: separate the elements by single commas",
    "ungrouped-group-ids | a b | holds 'a b', which is not an SQS MessageGroupId",
    "ungrouped-group-ids | a,b,a | lists 'a' twice",
    "total-group-id | all | only applies to FIFO queues with ordering=total",
    "deduplication-id-prefix | eu db | is not a valid start of an SQS MessageDeduplicationId",
    "batch-size | 0 | is out of range: use a number from 1 to 10",
    "batch-size | 11 | is out of range: use a number from 1 to 10",
    "batch-size | ten | is not a number: use a whole number from 1 to 10",
    "max-message-size | 1023 | is out of range: use a number from 1024 to 1048576",
    "max-message-size | 1048577 | is out of range: use a number from 1024 to 1048576",
    "max-message-size | 256KiB | is not a number: use a whole number from 1024 to 1048576",
    "api-call-timeout | 30s | must be shorter than outbox.orders.relay-timeout (30s)",
    "api-call-timeout | soon | is not a duration: expected a number with a unit",
    "api-call-timeout | 0s | must be longer than zero",
    "api-call-timeout | 2h | is too long: the limit is 1h",
    "api-call-attempt-timeout | 25s | is longer than the API call timeout (22500ms)",
    "api-call-attempt-timeout | -PT1S | is not a duration: expected a number with a unit",
    "api-call-attempt-timeout | PT-1S | must be longer than zero",
    "connect-timeout | 10s | is longer than the attempt timeout (7500ms)",
    "connect-timeout | 2 | is not a duration: expected a number with a unit",
    "connect-timeout | ' ' | is blank: remove the key for the default (2s, at most api-call-attempt-timeout)",
  })
  void a_bad_value_fails_naming_the_full_key_the_value_the_rule_and_a_fix(
      String key, String value, String rule) {
    assertThatThrownBy(() -> SqsSettings.from(context(key, value)))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageStartingWith("outbox.orders.sqs." + key + "=" + value + " " + rule)
        .hasMessageEndingWith(" (sqs relay of outbox 'orders')")
        .extracting(e -> ((OutboxConfigurationException) e).key())
        .isEqualTo("outbox.orders.sqs." + key);
  }

  @Test
  void a_deduplication_prefix_leaves_room_for_the_message_id() {
    assertThatThrownBy(() -> SqsSettings.from(context("deduplication-id-prefix", "p".repeat(110))))
        .hasMessageContaining("1 to 109 letters, digits or punctuation");
    assertThatCode(() -> SqsSettings.from(context("deduplication-id-prefix", "p".repeat(109))))
        .doesNotThrowAnyException();
  }

  @Test
  void the_queue_is_required_and_named_once() {
    assertThatThrownBy(() -> SqsSettings.from(context("queue-url", null)))
        .hasMessageStartingWith("outbox.orders.sqs.queue-url=(not set) is required: the sqs relay"
            + " needs the queue to send to")
        .hasMessageContaining("or set outbox.orders.sqs.queue-name instead");
    assertThatThrownBy(() -> SqsSettings.from(context("queue-name", "orders.fifo")))
        .hasMessageStartingWith("outbox.orders.sqs.queue-name=orders.fifo is set together with"
            + " outbox.orders.sqs.queue-url");
    assertThatThrownBy(() -> SqsSettings.from(context("queue-url", null, "queue-name", "bad name")))
        .hasMessageStartingWith("outbox.orders.sqs.queue-name=bad name does not name a valid SQS"
            + " queue");
  }

  @Test
  void static_credentials_come_in_pairs_and_secrets_are_never_shown() {
    assertThatThrownBy(() -> SqsSettings.from(context("access-key-id", "AKID")))
        .hasMessageStartingWith("outbox.orders.sqs.secret-access-key=(not set) is required when"
            + " outbox.orders.sqs.access-key-id is set");
    OutboxConfigurationException failure = (OutboxConfigurationException) org.assertj.core.api
        .Assertions.catchThrowable(() -> SqsSettings.from(context(
            "secret-access-key", "s3cr3t-value", "session-token", "t0ken-value",
            "batch-size", "99")));
    assertThat(allMessages(failure))
        .anySatisfy(message -> assertThat(message).startsWith("outbox.orders.sqs.access-key-id="
            + "(not set) is required when outbox.orders.sqs.secret-access-key is set"))
        .anySatisfy(message -> assertThat(message).startsWith("outbox.orders.sqs.session-token="
            + "(hidden) only works with"))
        .allSatisfy(message -> assertThat(message).doesNotContain("s3cr3t").doesNotContain("t0ken"));
  }

  @ParameterizedTest
  @EnumSource(value = Ordering.class, names = {"GROUP", "TOTAL"})
  void a_standard_queue_is_refused_for_an_ordering_it_cannot_keep(Ordering ordering) {
    String queue = "https://sqs.eu-west-1.amazonaws.com/123456789012/orders";
    assertThatThrownBy(() -> SqsSettings.from(
            context(ordering, Duration.ofSeconds(30), Map.of("queue-url", queue))))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessage("outbox.orders.sqs.queue-url=" + queue + " names a standard queue (its name"
            + " does not end in .fifo), but outbox 'orders' has ordering=" + ordering.configValue()
            + ". Standard queues do not keep the order of messages (they deliver in any order and"
            + " may deliver a message twice), so the outbox's order would be lost; use a FIFO queue"
            + " (its name ends in .fifo), or set outbox.orders.ordering=none if the order does not"
            + " matter (sqs relay of outbox 'orders')");
  }

  @Test
  void a_standard_queue_is_fine_without_order_but_takes_no_fifo_settings() {
    Map<String, String> standard = Map.of("queue-name", "audit");
    SqsSettings settings =
        SqsSettings.from(context(Ordering.NONE, Duration.ofSeconds(30), standard));
    assertThat(settings.fifo()).isFalse();

    Map<String, String> withFifoKeys = new HashMap<>(standard);
    withFifoKeys.put("ungrouped-group-ids", "a,b");
    withFifoKeys.put("deduplication-id-prefix", "p-");
    assertThatThrownBy(() -> SqsSettings.from(
            context(Ordering.NONE, Duration.ofSeconds(30), withFifoKeys)))
        .satisfies(failure -> assertThat(allMessages(failure)).containsExactlyInAnyOrder(
            "outbox.orders.sqs.ungrouped-group-ids=a,b only applies to FIFO queues;"
                + " outbox.orders.sqs.queue-name=audit is a standard queue, whose messages have no"
                + " group id; remove it (sqs relay of outbox 'orders')",
            "outbox.orders.sqs.deduplication-id-prefix=p- only applies to FIFO queues;"
                + " outbox.orders.sqs.queue-name=audit is a standard queue, which does not"
                + " deduplicate; remove it (sqs relay of outbox 'orders')"));
  }

  @Test
  void a_total_group_id_must_be_a_message_group_id() {
    assertThatThrownBy(() -> SqsSettings.from(context(Ordering.TOTAL, Duration.ofSeconds(30),
            Map.of("queue-url", AWS_QUEUE, "total-group-id", "all orders"))))
        .hasMessageStartingWith("outbox.orders.sqs.total-group-id=all orders is not an SQS"
            + " MessageGroupId");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "queue-ulr, queue-url",
    "queueurl, queue-url",
    "batchsize, batch-size",
    "ungrouped-groups, ungrouped-group-ids",
  })
  void an_unknown_key_names_the_nearest_known_one(String typo, String nearest) {
    assertThatThrownBy(() -> SqsSettings.from(context(typo, "x")))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageStartingWith("outbox.orders.sqs." + typo + " is not a setting of the sqs relay"
            + " of outbox 'orders'. Did you mean outbox.orders.sqs." + nearest + "?")
        .extracting(e -> ((OutboxConfigurationException) e).key())
        .isEqualTo("outbox.orders.sqs." + typo);
  }

  @ParameterizedTest
  @CsvSource({"region-name", "secret-key"})
  void an_unknown_key_far_from_every_known_one_names_none(String typo) {
    assertThatThrownBy(() -> SqsSettings.from(context(typo, "x")))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageStartingWith("outbox.orders.sqs." + typo + " is not a setting of the sqs relay"
            + " of outbox 'orders'. Known keys under outbox.orders.sqs.: [")
        .hasMessageNotContaining("Did you mean");
  }

  @Test
  void every_problem_is_reported_at_once_through_validate() {
    RelayContext context = context("batch-size", "0", "max-message-size", "big", "regoin", "x",
        "endpoint", "nowhere");

    assertThatThrownBy(() -> new SqsRelayProvider().validate(context))
        .isInstanceOf(OutboxConfigurationException.class)
        .satisfies(failure -> assertThat(allMessages(failure)).hasSize(4)
            .anySatisfy(m -> assertThat(m).startsWith("outbox.orders.sqs.regoin is not a setting"))
            .anySatisfy(m -> assertThat(m).startsWith("outbox.orders.sqs.endpoint=nowhere"))
            .anySatisfy(m -> assertThat(m).startsWith("outbox.orders.sqs.batch-size=0"))
            .anySatisfy(m -> assertThat(m).startsWith("outbox.orders.sqs.max-message-size=big")));
  }

  @Test
  void a_relay_timeout_too_short_for_a_call_and_its_retries_is_refused() {
    assertThatThrownBy(() -> SqsSettings.from(
            context(Ordering.GROUP, Duration.ofMillis(500), Map.of("queue-url", AWS_QUEUE))))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageStartingWith("outbox.orders.relay-timeout=500ms is too short for the sqs relay"
            + " of outbox 'orders': it needs at least 1s");
  }

  /**
   * User info in a URL is not how the SDK takes credentials, and the queue URL and endpoint are
   * shown in every error (stored as the message's last error): it is refused without showing it.
   */
  @Test
  void a_url_with_user_info_is_refused_without_showing_it() {
    assertThatThrownBy(() -> SqsSettings.from(context("queue-url",
        "https://AKID:s3cr3t@sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo")))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageStartingWith("outbox.orders.sqs.queue-url=https://(hidden)@sqs.eu-west-1"
            + ".amazonaws.com/123456789012/orders.fifo holds user info")
        .hasMessageContaining("outbox.orders.sqs.access-key-id")
        .hasMessageNotContaining("s3cr3t");
    assertThatThrownBy(() -> SqsSettings.from(context("endpoint", "http://user:s3cr3t@localhost:9324",
        "region", "elasticmq")))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageStartingWith("outbox.orders.sqs.endpoint=http://(hidden)@localhost:9324 holds"
            + " user info")
        .hasMessageNotContaining("s3cr3t");
  }

  @Test
  void the_catalog_found_by_the_service_loader_lists_the_declaration_the_relay_reads() {
    assertThat(ServiceLoader.load(SettingsCatalog.class).stream().map(ServiceLoader.Provider::type))
        .contains(SqsSettingsCatalog.class);
    assertThat(new SqsSettingsCatalog().declarations()).containsExactly(SqsSettings.DECLARATION);
    assertThat(SqsSettings.DECLARATION.title()).isEqualTo("sqs relay");
    assertThat(SqsSettings.DECLARATION.appliesWhen()).contains("outbox.<name>.relay=sqs");
    assertThat(SqsSettings.DECLARATION.settings()).allSatisfy(setting -> assertThat(setting.meaning()).isNotEmpty());
    assertThat(SqsSettings.DECLARATION.settings()).filteredOn(Setting::isSecret).extracting(Setting::key)
        .containsExactly("secret-access-key", "session-token");
    assertThat(SqsSettings.API_CALL_TIMEOUT_SETTING.defaultText()).contains("3/4 of relay-timeout");
  }

  @Test
  void a_secret_refused_by_its_type_is_not_shown_either() {
    assertThatThrownBy(() -> SqsSettings.from(context("access-key-id", "AKID", "secret-access-key", " ")))
        .hasMessageStartingWith("outbox.orders.sqs.secret-access-key=(hidden) is blank");
  }

  /** Host names are case-insensitive: an AWS queue URL in capitals is still AWS's, in its region. */
  @Test
  void an_aws_queue_url_with_its_host_in_capitals_still_gives_its_region() {
    SqsSettings settings = SqsSettings.from(context("queue-url",
        "https://SQS.EU-WEST-1.AMAZONAWS.COM/123456789012/orders.fifo"));
    assertThat(settings.region()).contains("eu-west-1");
    assertThat(settings.endpoint()).isEmpty();
    assertThatThrownBy(() -> SqsSettings.from(context("queue-url",
        "https://sqs.EU-WEST-1.amazonaws.com/123456789012/orders.fifo", "region", "us-east-1")))
        .hasMessageContaining("differs from the region of outbox.orders.sqs.queue-url (eu-west-1)");
  }

  @Test
  void without_region_setting_or_aws_queue_url_the_region_is_left_to_the_sdk() {
    SqsSettings settings = SqsSettings.from(context("queue-url", null, "queue-name", "orders.fifo"));
    assertThat(settings.region()).isEqualTo(Optional.empty());
    assertThat(settings.endpoint()).isEmpty();
  }
}
