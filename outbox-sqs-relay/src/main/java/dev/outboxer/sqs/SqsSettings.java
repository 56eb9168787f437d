package dev.outboxer.sqs;

import static dev.outboxer.sqs.SqsRelayProvider.ACCESS_KEY_ID;
import static dev.outboxer.sqs.SqsRelayProvider.API_CALL_ATTEMPT_TIMEOUT;
import static dev.outboxer.sqs.SqsRelayProvider.API_CALL_TIMEOUT;
import static dev.outboxer.sqs.SqsRelayProvider.BATCH_SIZE;
import static dev.outboxer.sqs.SqsRelayProvider.CONNECT_TIMEOUT;
import static dev.outboxer.sqs.SqsRelayProvider.DEDUPLICATION_ID_PREFIX;
import static dev.outboxer.sqs.SqsRelayProvider.ENDPOINT;
import static dev.outboxer.sqs.SqsRelayProvider.MAX_MESSAGE_SIZE;
import static dev.outboxer.sqs.SqsRelayProvider.NAME;
import static dev.outboxer.sqs.SqsRelayProvider.QUEUE_NAME;
import static dev.outboxer.sqs.SqsRelayProvider.QUEUE_URL;
import static dev.outboxer.sqs.SqsRelayProvider.REGION;
import static dev.outboxer.sqs.SqsRelayProvider.SECRET_ACCESS_KEY;
import static dev.outboxer.sqs.SqsRelayProvider.SESSION_TOKEN;
import static dev.outboxer.sqs.SqsRelayProvider.TOTAL_GROUP_ID;
import static dev.outboxer.sqs.SqsRelayProvider.UNGROUPED_GROUP_IDS;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.Ordering;
import dev.outboxer.spi.ConfigKeyNames;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.spi.Setting;
import dev.outboxer.spi.SettingsDeclaration;
import dev.outboxer.spi.SettingsReader;
import java.net.URI;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * The validated {@code outbox.<name>.sqs.*} settings of one outbox: where to send and as whom
 * ({@link SqsQueueSettings}), the FIFO ids, batching and timeouts. Every key is declared here once,
 * with its type, range, default and meaning (listed for the reference by {@link
 * SqsSettingsCatalog}), and read with the SPI's {@link SettingsReader}, which reports every
 * problem at once; the rules between keys are checked here and reported through the same reader.
 * Every rule is listed in the guide (docs/guides/sqs.md, SQS: configuration); keep the two in step.
 */
final class SqsSettings {

  /** The shortest relay timeout the SQS relay accepts: below it no SDK retry fits. */
  static final Duration MIN_RELAY_TIMEOUT = Duration.ofSeconds(1);

  /** A MessageDeduplicationId is at most 128 characters, and a message id takes up to 19. */
  static final int MAX_DEDUPLICATION_PREFIX_LENGTH = SqsRules.MAX_FIFO_ID_LENGTH - 19;

  /** The longest SQS timeout: a relay timeout is at most 1h, and every SQS timeout is shorter. */
  private static final Duration MAX_TIMEOUT = Duration.ofHours(1);

  private static final String FIFO_ID_RULE = "1 to " + SqsRules.MAX_FIFO_ID_LENGTH
      + " letters, digits or punctuation, no spaces";

  static final Setting<String> QUEUE_URL_SETTING = Setting.text(QUEUE_URL).range("http or https URL")
      .meaning("the queue's URL (this or `queue-name` is required; no `user:password@`, a port from 1 to 65535). A"
          + " host outside AWS (ElasticMQ, LocalStack) is also the endpoint; an AWS host also gives the region");
  static final Setting<String> QUEUE_NAME_SETTING = Setting.text(QUEUE_NAME)
      .meaning("the queue's name instead of its URL; the URL is asked of SQS (`GetQueueUrl`) before the first"
          + " batch");
  static final Setting<String> REGION_SETTING = Setting.text(REGION)
      .withDefault(null, "the queue URL's region, else the SDK's region chain")
      .meaning("the AWS region, e.g. `eu-west-1`; must agree with an AWS queue URL. Any simple name when"
          + " `endpoint` is set");
  static final Setting<String> ENDPOINT_SETTING = Setting.text(ENDPOINT).range("http(s)://host[:port]")
      .withDefault(null, "the region's AWS endpoint, or the address of a queue URL outside AWS")
      .meaning("endpoint override, no path, no user info (ElasticMQ, LocalStack, a VPC endpoint)");
  static final Setting<String> ACCESS_KEY_ID_SETTING = Setting.text(ACCESS_KEY_ID)
      .withDefault(null, "the SDK's default credentials chain")
      .meaning("static credentials, with `secret-access-key`: both or neither");
  static final Setting<String> SECRET_ACCESS_KEY_SETTING = Setting.text(SECRET_ACCESS_KEY).secret()
      .withDefault(null, "the SDK's default credentials chain")
      .meaning("static credentials, with `access-key-id`; never written to a message or log");
  static final Setting<String> SESSION_TOKEN_SETTING = Setting.text(SESSION_TOKEN).secret()
      .meaning("with the two above, for temporary credentials; never written to a message or log");
  static final Setting<List<String>> UNGROUPED_GROUP_IDS_SETTING = Setting.list(UNGROUPED_GROUP_IDS)
      .checkedBy(SqsSettings::ungroupedGroupIdsProblem)
      .withDefault(IntStream.range(0, 10).mapToObj(i -> "outbox-ungrouped-" + i).toList(),
          "outbox-ungrouped-0 ... outbox-ungrouped-9")
      .meaning("FIFO: the `MessageGroupId`s that messages without group key are spread over, by a stable hash of"
          + " the message id (each " + FIFO_ID_RULE + ")");
  static final Setting<String> TOTAL_GROUP_ID_SETTING = Setting.text(TOTAL_GROUP_ID)
      .checkedBy(id -> SqsRules.isFifoId(id) ? Optional.empty() : Optional.of("is not an SQS MessageGroupId ("
          + FIFO_ID_RULE + "); remove it (default: the outbox name) or fix it"))
      .withDefault(null, "the outbox name")
      .meaning("FIFO with `ordering=total`: the one `MessageGroupId` of every message");
  static final Setting<String> DEDUPLICATION_ID_PREFIX_SETTING = Setting.text(DEDUPLICATION_ID_PREFIX)
      .checkedBy(prefix -> prefix.length() <= MAX_DEDUPLICATION_PREFIX_LENGTH && SqsRules.isFifoId(prefix)
          ? Optional.empty() : Optional.of("is not a valid start of an SQS MessageDeduplicationId (1 to "
          + MAX_DEDUPLICATION_PREFIX_LENGTH + " letters, digits or punctuation, no spaces; the message id"
          + " follows); shorten or fix it"))
      .withDefault("", "empty")
      .meaning("FIFO: put before the message id in `MessageDeduplicationId`; set a distinct one per database when"
          + " several databases send to one queue");
  static final Setting<Integer> BATCH_SIZE_SETTING = Setting.integer(BATCH_SIZE, 1, SqsRules.MAX_BATCH_ENTRIES)
      .withDefault(10)
      .meaning("entries per `SendMessageBatch` call (SQS takes 1 to " + SqsRules.MAX_BATCH_ENTRIES + ")");
  static final Setting<Integer> MAX_MESSAGE_SIZE_SETTING = Setting.integer(MAX_MESSAGE_SIZE,
          SqsRules.MIN_MESSAGE_SIZE_LIMIT, SqsRules.MAX_MESSAGE_SIZE_LIMIT)
      .withDefault(262_144)
      .meaning("the queue's maximum message size in bytes (256 KiB by default on every SQS queue, which can be"
          + " raised to 1 MiB); raise it only for a queue configured for larger messages");
  static final Setting<Duration> API_CALL_TIMEOUT_SETTING = Setting.duration(API_CALL_TIMEOUT, MAX_TIMEOUT)
      .withDefault(null, "3/4 of relay-timeout")
      .meaning("one SQS call, the SDK's retries included; must be shorter than `outbox.<name>.relay-timeout`");
  static final Setting<Duration> API_CALL_ATTEMPT_TIMEOUT_SETTING =
      Setting.duration(API_CALL_ATTEMPT_TIMEOUT, MAX_TIMEOUT)
          .withDefault(null, "1/3 of api-call-timeout")
          .meaning("one HTTP attempt (also the socket read timeout); at most `api-call-timeout`");
  static final Setting<Duration> CONNECT_TIMEOUT_SETTING = Setting.duration(CONNECT_TIMEOUT, MAX_TIMEOUT)
      .withDefault(Duration.ofSeconds(2), "2s, at most api-call-attempt-timeout")
      .meaning("opening a connection; at most `api-call-attempt-timeout`");

  /** Every {@code outbox.<name>.sqs.*} key: any other is refused, naming the nearest known one. */
  static final SettingsDeclaration DECLARATION = SettingsDeclaration.of(NAME + " relay", "outbox-sqs-relay",
          "outbox." + ConfigKeyNames.NAME + "." + NAME + ".", QUEUE_URL_SETTING, QUEUE_NAME_SETTING,
          REGION_SETTING, ENDPOINT_SETTING, ACCESS_KEY_ID_SETTING, SECRET_ACCESS_KEY_SETTING,
          SESSION_TOKEN_SETTING, UNGROUPED_GROUP_IDS_SETTING, TOTAL_GROUP_ID_SETTING,
          DEDUPLICATION_ID_PREFIX_SETTING, BATCH_SIZE_SETTING, MAX_MESSAGE_SIZE_SETTING, API_CALL_TIMEOUT_SETTING,
          API_CALL_ATTEMPT_TIMEOUT_SETTING, CONNECT_TIMEOUT_SETTING)
      .appliesWhen("outbox." + ConfigKeyNames.NAME + ".relay=" + NAME);

  private final RelayContext context;
  private final SettingsReader reader;
  private final SqsQueueSettings queue;
  private final List<String> ungroupedGroupIds;
  private final String totalGroupId;
  private final String deduplicationIdPrefix;
  private final int batchSize;
  private final int maxMessageSize;
  private final Duration apiCallTimeout;
  private final Duration attemptTimeout;
  private final Duration connectTimeout;

  private SqsSettings(RelayContext context) {
    this.context = context;
    this.reader = context.settings(DECLARATION);
    this.queue = new SqsQueueSettings(reader, context);
    this.ungroupedGroupIds = readUngroupedGroupIds();
    this.totalGroupId = readTotalGroupId();
    this.deduplicationIdPrefix = readDeduplicationIdPrefix();
    this.batchSize = reader.get(BATCH_SIZE_SETTING);
    this.maxMessageSize = reader.get(MAX_MESSAGE_SIZE_SETTING);
    Duration relayTimeout = context.relayTimeout();
    String relayTimeoutKey = "outbox." + context.outbox() + ".relay-timeout";
    if (relayTimeout.compareTo(MIN_RELAY_TIMEOUT) < 0) {
      reader.problem(new OutboxConfigurationException(relayTimeoutKey, relayTimeoutKey + "="
          + Setting.formatDuration(relayTimeout) + " is too short for the sqs relay of outbox '" + context.outbox()
          + "': it needs at least " + Setting.formatDuration(MIN_RELAY_TIMEOUT) + " for an SQS call and its"
          + " retries; raise it"));
    }
    // Each call must end before the batch's deadline: an outcome after it is ignored, and the
    // records are sent again.
    this.apiCallTimeout = reader.optional(API_CALL_TIMEOUT_SETTING)
        .orElse(relayTimeout.multipliedBy(3).dividedBy(4));
    if (apiCallTimeout.compareTo(relayTimeout) >= 0) {
      reader.problem(API_CALL_TIMEOUT_SETTING, "must be shorter than " + relayTimeoutKey + " ("
          + Setting.formatDuration(relayTimeout) + "): a call still running at the batch deadline counts as"
          + " failed and its records are sent again; remove it (default 3/4 of the relay timeout) or raise the"
          + " relay timeout");
    }
    // A third of the call: room for the SDK's retries (3 attempts by default).
    this.attemptTimeout = reader.optional(API_CALL_ATTEMPT_TIMEOUT_SETTING).orElse(apiCallTimeout.dividedBy(3));
    if (attemptTimeout.compareTo(apiCallTimeout) > 0) {
      reader.problem(API_CALL_ATTEMPT_TIMEOUT_SETTING, "is longer than the API call timeout ("
          + Setting.formatDuration(apiCallTimeout) + "), which includes every attempt; remove it (default 1/3"
          + " of the API call timeout) or shorten it");
    }
    Duration connectDefault = CONNECT_TIMEOUT_SETTING.defaultValue().orElseThrow();
    this.connectTimeout = reader.optional(CONNECT_TIMEOUT_SETTING)
        .orElse(connectDefault.compareTo(attemptTimeout) < 0 ? connectDefault : attemptTimeout);
    if (connectTimeout.compareTo(attemptTimeout) > 0) {
      reader.problem(CONNECT_TIMEOUT_SETTING, "is longer than the attempt timeout ("
          + Setting.formatDuration(attemptTimeout) + "), which includes connecting; remove it (default "
          + Setting.formatDuration(connectDefault) + ") or shorten it");
    }
    reader.throwIfAny();
  }

  /**
   * Reads and validates every key.
   *
   * @throws OutboxConfigurationException the first problem, every other one suppressed
   */
  static SqsSettings from(RelayContext context) {
    return new SqsSettings(context);
  }

  String outbox() {
    return context.outbox();
  }

  Ordering ordering() {
    return context.ordering();
  }

  /** The queue URL when it was configured; empty when only the name was. */
  Optional<URI> queueUrl() {
    return queue.queueUrl();
  }

  String queueName() {
    return queue.queueName();
  }

  /** How the queue was configured, for messages: {@code outbox.x.sqs.queue-url=...}. */
  String queueSetting() {
    return queue.queueSetting();
  }

  boolean fifo() {
    return queue.fifo();
  }

  Optional<URI> endpoint() {
    return queue.endpoint();
  }

  Optional<String> region() {
    return queue.region();
  }

  Optional<String> accessKeyId() {
    return queue.accessKeyId();
  }

  Optional<String> secretAccessKey() {
    return queue.secretAccessKey();
  }

  Optional<String> sessionToken() {
    return queue.sessionToken();
  }

  List<String> ungroupedGroupIds() {
    return ungroupedGroupIds;
  }

  String totalGroupId() {
    return totalGroupId;
  }

  String deduplicationIdPrefix() {
    return deduplicationIdPrefix;
  }

  int batchSize() {
    return batchSize;
  }

  int maxMessageSize() {
    return maxMessageSize;
  }

  Duration apiCallTimeout() {
    return apiCallTimeout;
  }

  Duration attemptTimeout() {
    return attemptTimeout;
  }

  Duration connectTimeout() {
    return connectTimeout;
  }

  String fullKey(String key) {
    return reader.fullKey(key);
  }

  private boolean standardQueue() {
    return queue.queueKnown() && !queue.fifo();
  }

  private List<String> readUngroupedGroupIds() {
    if (reader.isSet(UNGROUPED_GROUP_IDS_SETTING) && standardQueue()) {
      reader.problem(UNGROUPED_GROUP_IDS_SETTING, "only applies to FIFO queues; " + queue.queueSetting()
          + " is a standard queue, whose messages have no group id; remove it");
    }
    return reader.get(UNGROUPED_GROUP_IDS_SETTING);
  }

  /** Why a list of ungrouped MessageGroupIds is refused, if it is. */
  private static Optional<String> ungroupedGroupIdsProblem(List<String> ids) {
    Set<String> seen = new HashSet<>();
    for (String id : ids) {
      if (!SqsRules.isFifoId(id)) {
        return Optional.of("holds '" + id + "', which is not an SQS MessageGroupId (" + FIFO_ID_RULE + "); list"
            + " ids separated by commas, e.g. ungrouped-0,ungrouped-1");
      }
      if (!seen.add(id)) {
        return Optional.of("lists '" + id + "' twice; list each id once");
      }
    }
    return Optional.empty();
  }

  private String readTotalGroupId() {
    if (reader.isSet(TOTAL_GROUP_ID_SETTING) && (context.ordering() != Ordering.TOTAL || standardQueue())) {
      reader.problem(TOTAL_GROUP_ID_SETTING, "only applies to FIFO queues with ordering=total; outbox '"
          + context.outbox() + "' has ordering=" + context.ordering().configValue()
          + (standardQueue() ? " and a standard queue" : "") + "; remove it");
    }
    return reader.optional(TOTAL_GROUP_ID_SETTING).orElseGet(() -> SqsRules.groupIdOf(context.outbox()));
  }

  private String readDeduplicationIdPrefix() {
    if (reader.isSet(DEDUPLICATION_ID_PREFIX_SETTING) && standardQueue()) {
      reader.problem(DEDUPLICATION_ID_PREFIX_SETTING, "only applies to FIFO queues; " + queue.queueSetting()
          + " is a standard queue, which does not deduplicate; remove it");
    }
    return reader.get(DEDUPLICATION_ID_PREFIX_SETTING);
  }
}
