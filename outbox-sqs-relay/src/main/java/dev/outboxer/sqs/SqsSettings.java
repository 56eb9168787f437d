package dev.outboxer.sqs;

import static dev.outboxer.sqs.SqsRelayProvider.ACCESS_KEY_ID;
import static dev.outboxer.sqs.SqsRelayProvider.API_CALL_ATTEMPT_TIMEOUT;
import static dev.outboxer.sqs.SqsRelayProvider.API_CALL_TIMEOUT;
import static dev.outboxer.sqs.SqsRelayProvider.BATCH_SIZE;
import static dev.outboxer.sqs.SqsRelayProvider.CONNECT_TIMEOUT;
import static dev.outboxer.sqs.SqsRelayProvider.DEDUPLICATION_ID_PREFIX;
import static dev.outboxer.sqs.SqsRelayProvider.DEFAULT_BATCH_SIZE;
import static dev.outboxer.sqs.SqsRelayProvider.DEFAULT_MAX_MESSAGE_SIZE;
import static dev.outboxer.sqs.SqsRelayProvider.DEFAULT_UNGROUPED_GROUP_COUNT;
import static dev.outboxer.sqs.SqsRelayProvider.ENDPOINT;
import static dev.outboxer.sqs.SqsRelayProvider.MAX_MESSAGE_SIZE;
import static dev.outboxer.sqs.SqsRelayProvider.QUEUE_NAME;
import static dev.outboxer.sqs.SqsRelayProvider.QUEUE_URL;
import static dev.outboxer.sqs.SqsRelayProvider.REGION;
import static dev.outboxer.sqs.SqsRelayProvider.SECRET_ACCESS_KEY;
import static dev.outboxer.sqs.SqsRelayProvider.SESSION_TOKEN;
import static dev.outboxer.sqs.SqsRelayProvider.TOTAL_GROUP_ID;
import static dev.outboxer.sqs.SqsRelayProvider.UNGROUPED_GROUP_IDS;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.Ordering;
import dev.outboxer.spi.RelayContext;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * The validated {@code outbox.<name>.sqs.*} settings of one outbox: where to send and as whom
 * ({@link SqsQueueSettings}), the FIFO ids, batching and timeouts. Reading them reports every
 * problem at once. Every rule is listed in the README section (SQS: configuration); keep the two
 * in step.
 */
final class SqsSettings {

  static final Set<String> KEYS = Set.of(QUEUE_URL, QUEUE_NAME, REGION, ENDPOINT, ACCESS_KEY_ID,
      SECRET_ACCESS_KEY, SESSION_TOKEN, UNGROUPED_GROUP_IDS, TOTAL_GROUP_ID,
      DEDUPLICATION_ID_PREFIX, BATCH_SIZE, MAX_MESSAGE_SIZE, API_CALL_TIMEOUT,
      API_CALL_ATTEMPT_TIMEOUT, CONNECT_TIMEOUT);

  /** The shortest relay timeout the SQS relay accepts: below it no SDK retry fits. */
  static final Duration MIN_RELAY_TIMEOUT = Duration.ofSeconds(1);

  /** The connect timeout unless set (and unless the attempt timeout is shorter). */
  static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);

  /** A MessageDeduplicationId is at most 128 characters, and a message id takes up to 19. */
  static final int MAX_DEDUPLICATION_PREFIX_LENGTH = SqsRules.MAX_FIFO_ID_LENGTH - 19;

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

  private SqsSettings(RelayContext configured) {
    // Keys set as environment variables (OUTBOX_<NAME>_SQS_QUEUE_URL) renamed to the keys they stand for.
    RelayContext context = configured.withKeys(KEYS);
    this.context = context;
    this.reader = new SettingsReader(context);
    reader.checkKnownKeys(KEYS);
    this.queue = new SqsQueueSettings(reader);
    this.ungroupedGroupIds = readUngroupedGroupIds();
    this.totalGroupId = readTotalGroupId();
    this.deduplicationIdPrefix = readDeduplicationIdPrefix();
    this.batchSize = reader.integer(BATCH_SIZE, DEFAULT_BATCH_SIZE, 1, SqsRules.MAX_BATCH_ENTRIES,
        "SendMessageBatch takes 1 to " + SqsRules.MAX_BATCH_ENTRIES + " entries");
    this.maxMessageSize = reader.integer(MAX_MESSAGE_SIZE, DEFAULT_MAX_MESSAGE_SIZE,
        SqsRules.MIN_MESSAGE_SIZE_LIMIT, SqsRules.MAX_MESSAGE_SIZE_LIMIT,
        "an SQS queue's maximum message size is 1,024 bytes to 1 MiB (1048576)");
    Duration relayTimeout = context.relayTimeout();
    String relayTimeoutKey = "outbox." + context.outbox() + ".relay-timeout";
    if (relayTimeout.compareTo(MIN_RELAY_TIMEOUT) < 0) {
      reader.problem(new OutboxConfigurationException(relayTimeoutKey, relayTimeoutKey + "="
          + relayTimeout + " is too short for the sqs relay of outbox '" + context.outbox()
          + "': it needs at least " + MIN_RELAY_TIMEOUT + " for an SQS call and its retries;"
          + " raise it."));
    }
    // Each call must end before the batch's deadline: an outcome after it is ignored, and the
    // records are sent again.
    this.apiCallTimeout =
        reader.duration(API_CALL_TIMEOUT, relayTimeout.multipliedBy(3).dividedBy(4));
    if (apiCallTimeout.compareTo(relayTimeout) >= 0) {
      reader.problem(API_CALL_TIMEOUT, reader.text(API_CALL_TIMEOUT).orElse(""), "must be"
          + " shorter than " + relayTimeoutKey + " (" + relayTimeout + "): a call still running"
          + " at the batch deadline counts as failed and its records are sent again", "remove it"
          + " (default 3/4 of the relay timeout) or raise the relay timeout");
    }
    // A third of the call: room for the SDK's retries (3 attempts by default).
    this.attemptTimeout = reader.duration(API_CALL_ATTEMPT_TIMEOUT, apiCallTimeout.dividedBy(3));
    if (attemptTimeout.compareTo(apiCallTimeout) > 0) {
      reader.problem(API_CALL_ATTEMPT_TIMEOUT, reader.text(API_CALL_ATTEMPT_TIMEOUT).orElse(""),
          "is longer than the API call timeout (" + apiCallTimeout + "), which includes every"
              + " attempt", "remove it (default 1/3 of the API call timeout) or shorten it");
    }
    Duration connectDefault = DEFAULT_CONNECT_TIMEOUT.compareTo(attemptTimeout) < 0
        ? DEFAULT_CONNECT_TIMEOUT : attemptTimeout;
    this.connectTimeout = reader.duration(CONNECT_TIMEOUT, connectDefault);
    if (connectTimeout.compareTo(attemptTimeout) > 0) {
      reader.problem(CONNECT_TIMEOUT, reader.text(CONNECT_TIMEOUT).orElse(""), "is longer than"
          + " the attempt timeout (" + attemptTimeout + "), which includes connecting",
          "remove it (default 2s) or shorten it");
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
    Optional<String> value = reader.text(UNGROUPED_GROUP_IDS);
    if (value.isEmpty()) {
      return IntStream.range(0, DEFAULT_UNGROUPED_GROUP_COUNT)
          .mapToObj(i -> "outbox-ungrouped-" + i).toList();
    }
    if (standardQueue()) {
      reader.problem(UNGROUPED_GROUP_IDS, value.get(), "only applies to FIFO queues; "
          + queue.queueSetting() + " is a standard queue, whose messages have no group id",
          "remove it");
    }
    List<String> ids = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (String part : value.get().split(",", -1)) {
      String id = part.strip();
      if (!SqsRules.isFifoId(id)) {
        reader.problem(UNGROUPED_GROUP_IDS, value.get(), "holds '" + id + "', which is not an SQS"
            + " MessageGroupId (1 to 128 letters, digits or punctuation, no spaces)",
            "list ids separated by commas, e.g. ungrouped-0,ungrouped-1");
        return List.of();
      }
      if (!seen.add(id)) {
        reader.problem(UNGROUPED_GROUP_IDS, value.get(), "lists '" + id + "' twice",
            "list each id once");
        return List.of();
      }
      ids.add(id);
    }
    return List.copyOf(ids);
  }

  private String readTotalGroupId() {
    Optional<String> value = reader.text(TOTAL_GROUP_ID);
    if (value.isEmpty()) {
      return SqsRules.groupIdOf(context.outbox());
    }
    if (context.ordering() != Ordering.TOTAL || standardQueue()) {
      reader.problem(TOTAL_GROUP_ID, value.get(), "only applies to FIFO queues with"
          + " ordering=total; outbox '" + context.outbox() + "' has ordering="
          + context.ordering().configValue() + (standardQueue() ? " and a standard queue" : ""),
          "remove it");
    }
    if (!SqsRules.isFifoId(value.get())) {
      reader.problem(TOTAL_GROUP_ID, value.get(), "is not an SQS MessageGroupId (1 to 128"
          + " letters, digits or punctuation, no spaces)", "remove it (default: the outbox name)"
          + " or fix it");
    }
    return value.get();
  }

  private String readDeduplicationIdPrefix() {
    Optional<String> value = reader.text(DEDUPLICATION_ID_PREFIX);
    if (value.isEmpty()) {
      return "";
    }
    if (standardQueue()) {
      reader.problem(DEDUPLICATION_ID_PREFIX, value.get(), "only applies to FIFO queues; "
          + queue.queueSetting() + " is a standard queue, which does not deduplicate",
          "remove it");
    }
    if (value.get().length() > MAX_DEDUPLICATION_PREFIX_LENGTH
        || !SqsRules.isFifoId(value.get())) {
      reader.problem(DEDUPLICATION_ID_PREFIX, value.get(), "is not a valid start of an SQS"
          + " MessageDeduplicationId (1 to " + MAX_DEDUPLICATION_PREFIX_LENGTH + " letters,"
          + " digits or punctuation, no spaces; the message id follows)", "shorten or fix it");
    }
    return value.get();
  }
}
