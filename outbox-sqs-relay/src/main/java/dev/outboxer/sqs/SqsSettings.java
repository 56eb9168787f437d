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
import dev.outboxer.spi.RelayContext;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

/**
 * The validated {@code outbox.<name>.sqs.*} settings of one outbox. Reading them reports every
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

  // AWS region names: us-east-1, eu-central-2, us-gov-west-1, cn-north-1, ap-southeast-5 ...
  private static final Pattern AWS_REGION = Pattern.compile("[a-z]{2}(-[a-z]+)+-\\d{1,2}");
  // Regions of a local SQS (ElasticMQ, LocalStack) can be any simple name.
  private static final Pattern ANY_REGION = Pattern.compile("[a-z0-9][a-z0-9-]{0,49}");
  // sqs.<region>.amazonaws.com(.cn), sqs.<region>.api.aws, and the legacy <region>.queue.amazonaws.com
  private static final Pattern AWS_QUEUE_HOST = Pattern.compile(
      "(?:sqs(?:-fips)?\\.([a-z0-9-]+)\\.(?:amazonaws\\.com(?:\\.cn)?|api\\.aws)"
          + "|([a-z0-9-]+)\\.queue\\.amazonaws\\.com(?:\\.cn)?)");

  private final RelayContext context;
  private final List<OutboxConfigurationException> problems = new ArrayList<>();

  private final String queueKey;
  private final String queueValue;
  private final Optional<URI> queueUrl;
  private final String queueName;
  private final boolean fifo;
  private final Optional<URI> endpoint;
  private final Optional<String> region;
  private final Optional<String> accessKeyId;
  private final Optional<String> secretAccessKey;
  private final Optional<String> sessionToken;
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
    checkKnownKeys();
    Optional<String> url = text(QUEUE_URL);
    Optional<String> name = text(QUEUE_NAME);
    if (url.isPresent() && name.isPresent()) {
      problem(QUEUE_NAME, name.get(), "is set together with " + fullKey(QUEUE_URL) + "; the queue"
          + " must be named once", "remove one of the two");
    } else if (url.isEmpty() && name.isEmpty()) {
      problem(QUEUE_URL, "(not set)", "is required: the sqs relay needs the queue to send to",
          "set it to the queue's URL, e.g. https://sqs.eu-west-1.amazonaws.com/123456789012/"
              + context.outbox() + ".fifo, or set " + fullKey(QUEUE_NAME) + " instead");
    }
    this.queueKey = url.isPresent() ? QUEUE_URL : QUEUE_NAME;
    this.queueValue = url.or(() -> name).orElse("");
    this.queueUrl = url.flatMap(this::queueUrl);
    this.queueName = queueUrl.map(SqsSettings::lastPathSegment).or(() -> name).orElse("");
    if (!queueName.isEmpty() && !SqsRules.isQueueName(queueName)) {
      problem(queueKey, queueValue, "does not name a valid SQS queue: '" + queueName + "' must"
          + " have 1 to 80 letters, digits, '-' or '_', a FIFO queue's name ending in .fifo"
          + " (counted)", "check the queue's name");
    }
    this.fifo = SqsRules.isFifoQueueName(queueName);
    this.endpoint = text(ENDPOINT).flatMap(this::endpoint).or(this::endpointOfLocalQueue);
    this.region = text(REGION).flatMap(this::region).or(this::regionOfQueueUrl);
    this.accessKeyId = text(ACCESS_KEY_ID);
    this.secretAccessKey = text(SECRET_ACCESS_KEY);
    this.sessionToken = text(SESSION_TOKEN);
    checkCredentials();
    checkOrderingAndQueueType();
    this.ungroupedGroupIds = readUngroupedGroupIds();
    this.totalGroupId = readTotalGroupId();
    this.deduplicationIdPrefix = readDeduplicationIdPrefix();
    this.batchSize = integer(BATCH_SIZE, DEFAULT_BATCH_SIZE, 1, SqsRules.MAX_BATCH_ENTRIES,
        "SendMessageBatch takes 1 to " + SqsRules.MAX_BATCH_ENTRIES + " entries");
    this.maxMessageSize = integer(MAX_MESSAGE_SIZE, DEFAULT_MAX_MESSAGE_SIZE,
        SqsRules.MIN_MESSAGE_SIZE_LIMIT, SqsRules.MAX_MESSAGE_SIZE_LIMIT,
        "an SQS queue's maximum message size is 1,024 bytes to 1 MiB (1048576)");
    Duration relayTimeout = context.relayTimeout();
    String relayTimeoutKey = "outbox." + context.outbox() + ".relay-timeout";
    if (relayTimeout.compareTo(MIN_RELAY_TIMEOUT) < 0) {
      problems.add(new OutboxConfigurationException(relayTimeoutKey, relayTimeoutKey + "="
          + relayTimeout + " is too short for the sqs relay of outbox '" + context.outbox()
          + "': it needs at least " + MIN_RELAY_TIMEOUT + " for an SQS call and its retries;"
          + " raise it."));
    }
    this.apiCallTimeout = duration(API_CALL_TIMEOUT, relayTimeout.multipliedBy(3).dividedBy(4));
    if (apiCallTimeout.compareTo(relayTimeout) >= 0) {
      problem(API_CALL_TIMEOUT, text(API_CALL_TIMEOUT).orElse(""), "must be shorter than "
          + relayTimeoutKey + " (" + relayTimeout + "): a call still running at the batch"
          + " deadline counts as failed and its records are sent again", "remove it (default 3/4"
          + " of the relay timeout) or raise the relay timeout");
    }
    this.attemptTimeout = duration(API_CALL_ATTEMPT_TIMEOUT, apiCallTimeout.dividedBy(3));
    if (attemptTimeout.compareTo(apiCallTimeout) > 0) {
      problem(API_CALL_ATTEMPT_TIMEOUT, text(API_CALL_ATTEMPT_TIMEOUT).orElse(""), "is longer than"
          + " the API call timeout (" + apiCallTimeout + "), which includes every attempt",
          "remove it (default 1/3 of the API call timeout) or shorten it");
    }
    Duration connectDefault = DEFAULT_CONNECT_TIMEOUT.compareTo(attemptTimeout) < 0
        ? DEFAULT_CONNECT_TIMEOUT : attemptTimeout;
    this.connectTimeout = duration(CONNECT_TIMEOUT, connectDefault);
    if (connectTimeout.compareTo(attemptTimeout) > 0) {
      problem(CONNECT_TIMEOUT, text(CONNECT_TIMEOUT).orElse(""), "is longer than the attempt"
          + " timeout (" + attemptTimeout + "), which includes connecting",
          "remove it (default 2s) or shorten it");
    }
    if (!problems.isEmpty()) {
      OutboxConfigurationException first = problems.get(0);
      problems.subList(1, problems.size()).forEach(first::addSuppressed);
      throw first;
    }
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
    return queueUrl;
  }

  String queueName() {
    return queueName;
  }

  /** How the queue was configured, for messages: {@code outbox.x.sqs.queue-url=...}. */
  String queueSetting() {
    return fullKey(queueKey) + "=" + queueValue;
  }

  boolean fifo() {
    return fifo;
  }

  Optional<URI> endpoint() {
    return endpoint;
  }

  Optional<String> region() {
    return region;
  }

  Optional<String> accessKeyId() {
    return accessKeyId;
  }

  Optional<String> secretAccessKey() {
    return secretAccessKey;
  }

  Optional<String> sessionToken() {
    return sessionToken;
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
    return context.fullKey(NAME, key);
  }

  private void checkKnownKeys() {
    for (String key : new TreeSet<>(context.properties().keySet())) {
      if (!KEYS.contains(key)) {
        String fullKey = fullKey(key);
        problems.add(new OutboxConfigurationException(fullKey, fullKey + " is not a setting of the"
            + " sqs relay of outbox '" + context.outbox() + "'. Did you mean " + fullKey(SettingsText.nearest(key, KEYS))
            + "? Known keys under outbox." + context.outbox() + ".sqs.: " + new TreeSet<>(KEYS)));
      }
    }
  }

  private Optional<URI> queueUrl(String value) {
    URI uri = uri(value);
    if (uri == null || !isHttp(uri) || uri.getRawQuery() != null || uri.getRawFragment() != null
        || lastPathSegment(uri).isEmpty()) {
      problem(QUEUE_URL, value, "is not a queue URL (http or https, a host, and a path ending in"
          + " the queue name)", "copy the URL from the SQS console or from GetQueueUrl, e.g."
          + " https://sqs.eu-west-1.amazonaws.com/123456789012/" + context.outbox() + ".fifo");
      return Optional.empty();
    }
    return Optional.of(uri);
  }

  private Optional<URI> endpoint(String value) {
    URI uri = uri(value);
    if (uri == null || !isHttp(uri) || uri.getRawQuery() != null || uri.getRawFragment() != null
        || (uri.getRawPath() != null && !uri.getRawPath().isEmpty()
            && !uri.getRawPath().equals("/"))) {
      problem(ENDPOINT, value, "is not an endpoint URL (http or https, a host and an optional"
          + " port, no path)", "set e.g. http://localhost:9324 for ElasticMQ, or remove it to use"
          + " the region's AWS endpoint");
      return Optional.empty();
    }
    return Optional.of(uri);
  }

  /** A queue URL outside AWS (ElasticMQ, LocalStack) is served at its own address. */
  private Optional<URI> endpointOfLocalQueue() {
    return queueUrl.filter(url -> awsRegionOf(url) == null && !url.getHost().endsWith(
            ".amazonaws.com") && !url.getHost().endsWith(".amazonaws.com.cn")
            && !url.getHost().endsWith(".api.aws"))
        .map(url -> URI.create(url.getScheme() + "://" + url.getRawAuthority()));
  }

  private Optional<String> region(String value) {
    Pattern rule = endpoint.isPresent() ? ANY_REGION : AWS_REGION;
    if (!rule.matcher(value).matches()) {
      problem(REGION, value, endpoint.isPresent()
              ? "is not a region name (lower-case letters, digits and '-')"
              : "is not an AWS region name such as eu-west-1 or us-east-1",
          "set the region of the queue");
      return Optional.empty();
    }
    String urlRegion = queueUrl.map(SqsSettings::awsRegionOf).orElse(null);
    if (urlRegion != null && !urlRegion.equals(value)) {
      problem(REGION, value, "differs from the region of " + fullKey(QUEUE_URL) + " ("
          + urlRegion + ")", "remove it (the queue URL tells the region) or fix one of them");
    }
    return Optional.of(value);
  }

  private Optional<String> regionOfQueueUrl() {
    return queueUrl.map(SqsSettings::awsRegionOf);
  }

  private static String awsRegionOf(URI url) {
    Matcher host = AWS_QUEUE_HOST.matcher(url.getHost());
    if (!host.matches()) {
      return null;
    }
    return host.group(1) != null ? host.group(1) : host.group(2);
  }

  private void checkCredentials() {
    if (accessKeyId.isPresent() && secretAccessKey.isEmpty()) {
      problem(SECRET_ACCESS_KEY, "(not set)", "is required when " + fullKey(ACCESS_KEY_ID)
          + " is set: static credentials are a pair", "set it, or remove "
          + fullKey(ACCESS_KEY_ID) + " to use the SDK's default credentials chain");
    }
    if (secretAccessKey.isPresent() && accessKeyId.isEmpty()) {
      // The secret itself is never shown.
      problem(ACCESS_KEY_ID, "(not set)", "is required when " + fullKey(SECRET_ACCESS_KEY)
          + " is set: static credentials are a pair", "set it, or remove "
          + fullKey(SECRET_ACCESS_KEY) + " to use the SDK's default credentials chain");
    }
    if (sessionToken.isPresent() && accessKeyId.isEmpty()) {
      problem(SESSION_TOKEN, "(hidden)", "only works with " + fullKey(ACCESS_KEY_ID) + " and "
          + fullKey(SECRET_ACCESS_KEY) + " (temporary credentials)", "set them, or remove it");
    }
  }

  private void checkOrderingAndQueueType() {
    if (queueName.isEmpty() || fifo || context.ordering() == Ordering.NONE) {
      return;
    }
    problem(queueKey, queueValue, "names a standard queue (its name does not end in .fifo), but"
        + " outbox '" + context.outbox() + "' has ordering=" + context.ordering().configValue()
        + ". Standard queues do not keep the order of messages (they deliver in any order and may"
        + " deliver a message twice), so the outbox's order would be lost", "use a FIFO queue"
        + " (its name ends in .fifo), or set outbox." + context.outbox() + ".ordering=none if the"
        + " order does not matter");
  }

  private List<String> readUngroupedGroupIds() {
    Optional<String> value = text(UNGROUPED_GROUP_IDS);
    if (value.isEmpty()) {
      return IntStream.range(0, DEFAULT_UNGROUPED_GROUP_COUNT)
          .mapToObj(i -> "outbox-ungrouped-" + i).toList();
    }
    if (!queueName.isEmpty() && !fifo) {
      problem(UNGROUPED_GROUP_IDS, value.get(), "only applies to FIFO queues; " + queueSetting()
          + " is a standard queue, whose messages have no group id", "remove it");
    }
    List<String> ids = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (String part : value.get().split(",", -1)) {
      String id = part.strip();
      if (!SqsRules.isFifoId(id)) {
        problem(UNGROUPED_GROUP_IDS, value.get(), "holds '" + id + "', which is not an SQS"
            + " MessageGroupId (1 to 128 letters, digits or punctuation, no spaces)",
            "list ids separated by commas, e.g. ungrouped-0,ungrouped-1");
        return List.of();
      }
      if (!seen.add(id)) {
        problem(UNGROUPED_GROUP_IDS, value.get(), "lists '" + id + "' twice",
            "list each id once");
        return List.of();
      }
      ids.add(id);
    }
    return List.copyOf(ids);
  }

  private String readTotalGroupId() {
    Optional<String> value = text(TOTAL_GROUP_ID);
    if (value.isEmpty()) {
      return SqsRules.groupIdOf(context.outbox());
    }
    if (context.ordering() != Ordering.TOTAL || (!queueName.isEmpty() && !fifo)) {
      problem(TOTAL_GROUP_ID, value.get(), "only applies to FIFO queues with ordering=total;"
          + " outbox '" + context.outbox() + "' has ordering=" + context.ordering().configValue()
          + (fifo ? "" : " and a standard queue"), "remove it");
    }
    if (!SqsRules.isFifoId(value.get())) {
      problem(TOTAL_GROUP_ID, value.get(), "is not an SQS MessageGroupId (1 to 128 letters,"
          + " digits or punctuation, no spaces)", "remove it (default: the outbox name) or fix it");
    }
    return value.get();
  }

  private String readDeduplicationIdPrefix() {
    Optional<String> value = text(DEDUPLICATION_ID_PREFIX);
    if (value.isEmpty()) {
      return "";
    }
    if (!queueName.isEmpty() && !fifo) {
      problem(DEDUPLICATION_ID_PREFIX, value.get(), "only applies to FIFO queues; "
          + queueSetting() + " is a standard queue, which does not deduplicate", "remove it");
    }
    // The id follows: at most 19 digits.
    if (value.get().length() > SqsRules.MAX_FIFO_ID_LENGTH - 19
        || !SqsRules.isFifoId(value.get())) {
      problem(DEDUPLICATION_ID_PREFIX, value.get(), "is not a valid start of an SQS"
          + " MessageDeduplicationId (1 to " + (SqsRules.MAX_FIFO_ID_LENGTH - 19) + " letters,"
          + " digits or punctuation, no spaces; the message id follows)", "shorten or fix it");
    }
    return value.get();
  }

  private int integer(String key, int defaultValue, int min, int max, String rule) {
    Optional<String> value = text(key);
    if (value.isEmpty()) {
      return defaultValue;
    }
    try {
      int number = Integer.parseInt(value.get());
      if (number >= min && number <= max) {
        return number;
      }
    } catch (NumberFormatException e) {
      // reported below, with the rule
    }
    problem(key, value.get(), "is not a whole number from " + min + " to " + max + " (" + rule
        + ")", "remove it (default " + defaultValue + ") or fix it");
    return defaultValue;
  }

  private Duration duration(String key, Duration defaultValue) {
    Optional<String> value = text(key);
    if (value.isEmpty()) {
      return defaultValue;
    }
    Duration parsed = SettingsText.parseDuration(value.get());
    if (parsed == null || parsed.isNegative() || parsed.isZero()) {
      problem(key, value.get(), "is not a positive duration", "write it as 500ms, 30s, 2m or"
          + " ISO-8601 PT30S, or remove it (default " + defaultValue.toMillis() + "ms)");
      return defaultValue;
    }
    return parsed;
  }

  private Optional<String> text(String key) {
    return context.property(key).map(String::strip);
  }

  private void problem(String key, String value, String rule, String fix) {
    String fullKey = fullKey(key);
    String shown = key.equals(SECRET_ACCESS_KEY) || key.equals(SESSION_TOKEN)
        ? (value.startsWith("(") ? value : "(hidden)") : value;
    problems.add(new OutboxConfigurationException(fullKey, fullKey + "=" + shown + " " + rule
        + " (sqs relay of outbox '" + context.outbox() + "'); " + fix + "."));
  }

  private static URI uri(String value) {
    try {
      URI uri = new URI(value);
      return uri.isAbsolute() && uri.getHost() != null ? uri : null;
    } catch (URISyntaxException e) {
      return null;
    }
  }

  private static boolean isHttp(URI uri) {
    return "http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme());
  }

  private static String lastPathSegment(URI uri) {
    String path = uri.getPath() == null ? "" : uri.getPath();
    while (path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    return path.substring(path.lastIndexOf('/') + 1);
  }
}
