package dev.outboxer.sqs;

import static dev.outboxer.sqs.SqsSettings.ACCESS_KEY_ID_SETTING;
import static dev.outboxer.sqs.SqsSettings.ENDPOINT_SETTING;
import static dev.outboxer.sqs.SqsSettings.QUEUE_NAME_SETTING;
import static dev.outboxer.sqs.SqsSettings.QUEUE_URL_SETTING;
import static dev.outboxer.sqs.SqsSettings.REGION_SETTING;
import static dev.outboxer.sqs.SqsSettings.SECRET_ACCESS_KEY_SETTING;
import static dev.outboxer.sqs.SqsSettings.SESSION_TOKEN_SETTING;

import dev.outboxer.Ordering;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.spi.Setting;
import dev.outboxer.spi.SettingsReader;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where the relay sends and as whom: the queue (URL or name, FIFO or standard), the endpoint, the
 * region and the credentials, read from {@code outbox.<name>.sqs.*} with the SPI's reader, which
 * collects every problem.
 */
final class SqsQueueSettings {

  // AWS region names: us-east-1, eu-central-2, us-gov-west-1, cn-north-1, ap-southeast-5 ...
  private static final Pattern AWS_REGION = Pattern.compile("[a-z]{2}(-[a-z]+)+-\\d{1,2}");
  // Regions of a local SQS (ElasticMQ, LocalStack) can be any simple name.
  private static final Pattern ANY_REGION = Pattern.compile("[a-z0-9][a-z0-9-]{0,49}");
  // sqs.<region>.amazonaws.com(.cn), sqs.<region>.api.aws, and the legacy <region>.queue.amazonaws.com
  private static final Pattern AWS_QUEUE_HOST = Pattern.compile(
      "(?:sqs(?:-fips)?\\.([a-z0-9-]+)\\.(?:amazonaws\\.com(?:\\.cn)?|api\\.aws)"
          + "|([a-z0-9-]+)\\.queue\\.amazonaws\\.com(?:\\.cn)?)");

  private final SettingsReader reader;
  private final RelayContext context;
  private final Setting<String> queueKey;
  private final String queueValue;
  private final Optional<URI> queueUrl;
  private final String queueName;
  private final boolean fifo;
  private final Optional<URI> endpoint;
  private final Optional<String> region;
  private final Optional<String> accessKeyId;
  private final Optional<String> secretAccessKey;
  private final Optional<String> sessionToken;

  SqsQueueSettings(SettingsReader reader, RelayContext context) {
    this.reader = reader;
    this.context = context;
    String outbox = context.outbox();
    boolean urlSet = reader.isSet(QUEUE_URL_SETTING);
    boolean nameSet = reader.isSet(QUEUE_NAME_SETTING);
    if (urlSet && nameSet) {
      reader.problem(QUEUE_NAME_SETTING, "is set together with " + reader.fullKey(QUEUE_URL_SETTING.key())
          + "; the queue must be named once; remove one of the two");
    } else if (!urlSet && !nameSet) {
      reader.problem(QUEUE_URL_SETTING, "(not set)", "is required: the sqs relay needs the queue to send to;"
          + " set it to the queue's URL, e.g. https://sqs.eu-west-1.amazonaws.com/123456789012/" + outbox
          + ".fifo, or set " + reader.fullKey(QUEUE_NAME_SETTING.key()) + " instead");
    }
    Optional<String> url = reader.optional(QUEUE_URL_SETTING);
    Optional<String> name = reader.optional(QUEUE_NAME_SETTING);
    this.queueKey = url.isPresent() ? QUEUE_URL_SETTING : QUEUE_NAME_SETTING;
    this.queueValue = withoutUserInfo(url.or(() -> name).orElse(""));
    this.queueUrl = url.flatMap(this::queueUrl);
    this.queueName = queueUrl.map(SqsQueueSettings::lastPathSegment).or(() -> name).orElse("");
    if (!queueName.isEmpty() && !SqsRules.isQueueName(queueName)) {
      reader.problem(queueKey, queueValue, "does not name a valid SQS queue: '" + queueName
          + "' must have 1 to 80 letters, digits, '-' or '_', a FIFO queue's name ending in"
          + " .fifo (counted); check the queue's name");
    }
    this.fifo = SqsRules.isFifoQueueName(queueName);
    this.endpoint = reader.optional(ENDPOINT_SETTING).flatMap(this::endpoint).or(this::endpointOfLocalQueue);
    this.region = reader.optional(REGION_SETTING).flatMap(this::region).or(this::regionOfQueueUrl);
    this.accessKeyId = reader.optional(ACCESS_KEY_ID_SETTING);
    this.secretAccessKey = reader.optional(SECRET_ACCESS_KEY_SETTING);
    this.sessionToken = reader.optional(SESSION_TOKEN_SETTING);
    checkCredentials();
    checkOrdering(context.ordering());
  }

  Optional<URI> queueUrl() {
    return queueUrl;
  }

  String queueName() {
    return queueName;
  }

  /** A queue is named (validly or not): the FIFO-only keys can be judged. */
  boolean queueKnown() {
    return !queueName.isEmpty();
  }

  String queueSetting() {
    return reader.fullKey(queueKey.key()) + "=" + queueValue;
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

  private Optional<URI> queueUrl(String value) {
    URI uri = uri(value);
    if (hasUserInfo(QUEUE_URL_SETTING, uri, value)) {
      return Optional.empty();
    }
    if (uri == null || !isHttp(uri) || uri.getRawQuery() != null || uri.getRawFragment() != null
        || lastPathSegment(uri).isEmpty()) {
      reader.problem(QUEUE_URL_SETTING, "is not a queue URL (http or https, a host, and a path"
          + " ending in the queue name); copy the URL from the SQS console or from GetQueueUrl,"
          + " e.g. https://sqs.eu-west-1.amazonaws.com/123456789012/" + context.outbox() + ".fifo");
      return Optional.empty();
    }
    return Optional.of(uri);
  }

  private Optional<URI> endpoint(String value) {
    URI uri = uri(value);
    if (hasUserInfo(ENDPOINT_SETTING, uri, value)) {
      return Optional.empty();
    }
    if (uri == null || !isHttp(uri) || uri.getRawQuery() != null || uri.getRawFragment() != null
        || (uri.getRawPath() != null && !uri.getRawPath().isEmpty()
            && !uri.getRawPath().equals("/"))) {
      reader.problem(ENDPOINT_SETTING, "is not an endpoint URL (http or https, a host and an"
          + " optional port, no path); set e.g. http://localhost:9324 for ElasticMQ, or remove"
          + " it to use the region's AWS endpoint");
      return Optional.empty();
    }
    return Optional.of(uri);
  }

  /**
   * User info ({@code user:password@}) in a URL is refused: the SDK does not take credentials that
   * way, and the queue URL and the endpoint are shown in every error (stored as messages' last
   * errors), so it is not shown either.
   *
   * @return whether the URL has user info (and a problem was recorded)
   */
  private boolean hasUserInfo(Setting<String> key, URI uri, String value) {
    if (uri == null || uri.getRawUserInfo() == null) {
      return false;
    }
    reader.problem(key, withoutUserInfo(value), "holds user info (user:password@), which the"
        + " sqs relay does not use and would show in every error; remove it; set static"
        + " credentials with " + reader.fullKey(ACCESS_KEY_ID_SETTING.key()) + " and "
        + reader.fullKey(SECRET_ACCESS_KEY_SETTING.key()) + ", or leave them to the SDK's default chain");
    return true;
  }

  /** The text with the user info of a URL in it replaced by {@code (hidden)}. */
  private static String withoutUserInfo(String value) {
    return value.replaceFirst("^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#]*@", "$1(hidden)@");
  }

  /** A queue URL outside AWS (ElasticMQ, LocalStack) is served at its own address. */
  private Optional<URI> endpointOfLocalQueue() {
    return queueUrl.filter(url -> awsRegionOf(url) == null
            && !host(url).endsWith(".amazonaws.com")
            && !host(url).endsWith(".amazonaws.com.cn")
            && !host(url).endsWith(".api.aws"))
        .map(url -> URI.create(url.getScheme() + "://" + url.getRawAuthority()));
  }

  private Optional<String> region(String value) {
    Pattern rule = endpoint.isPresent() ? ANY_REGION : AWS_REGION;
    if (!rule.matcher(value).matches()) {
      reader.problem(REGION_SETTING, (endpoint.isPresent()
              ? "is not a region name (lower-case letters, digits and '-')"
              : "is not an AWS region name such as eu-west-1 or us-east-1")
          + "; set the region of the queue");
      return Optional.empty();
    }
    String urlRegion = queueUrl.map(SqsQueueSettings::awsRegionOf).orElse(null);
    if (urlRegion != null && !urlRegion.equals(value)) {
      reader.problem(REGION_SETTING, "differs from the region of " + reader.fullKey(QUEUE_URL_SETTING.key())
          + " (" + urlRegion + "); remove it (the queue URL tells the region) or fix one of them");
    }
    return Optional.of(value);
  }

  private Optional<String> regionOfQueueUrl() {
    return queueUrl.map(SqsQueueSettings::awsRegionOf);
  }

  private static String awsRegionOf(URI url) {
    Matcher host = AWS_QUEUE_HOST.matcher(host(url));
    if (!host.matches()) {
      return null;
    }
    return host.group(1) != null ? host.group(1) : host.group(2);
  }

  private void checkCredentials() {
    String id = reader.fullKey(ACCESS_KEY_ID_SETTING.key());
    String secret = reader.fullKey(SECRET_ACCESS_KEY_SETTING.key());
    if (accessKeyId.isPresent() && !reader.isSet(SECRET_ACCESS_KEY_SETTING)) {
      reader.problem(SECRET_ACCESS_KEY_SETTING, "(not set)", "is required when " + id + " is set: static"
          + " credentials are a pair; set it, or remove " + id + " to use the SDK's default"
          + " credentials chain");
    }
    if (secretAccessKey.isPresent() && !reader.isSet(ACCESS_KEY_ID_SETTING)) {
      reader.problem(ACCESS_KEY_ID_SETTING, "(not set)", "is required when " + secret + " is set: static"
          + " credentials are a pair; set it, or remove " + secret + " to use the SDK's default"
          + " credentials chain");
    }
    if (sessionToken.isPresent() && !reader.isSet(ACCESS_KEY_ID_SETTING)) {
      reader.problem(SESSION_TOKEN_SETTING, "only works with " + id + " and " + secret
          + " (temporary credentials); set them, or remove it");
    }
  }

  private void checkOrdering(Ordering ordering) {
    if (!queueKnown() || fifo || ordering == Ordering.NONE) {
      return;
    }
    String outbox = context.outbox();
    reader.problem(queueKey, queueValue, "names a standard queue (its name does not end in"
        + " .fifo), but outbox '" + outbox + "' has ordering=" + ordering.configValue()
        + ". Standard queues do not keep the order of messages (they deliver in any order and may"
        + " deliver a message twice), so the outbox's order would be lost; use a FIFO queue"
        + " (its name ends in .fifo), or set outbox." + outbox + ".ordering=none if the order"
        + " does not matter");
  }

  /** Host names are case-insensitive: SQS.EU-WEST-1.AMAZONAWS.COM is AWS's, in eu-west-1. */
  private static String host(URI url) {
    return url.getHost().toLowerCase(java.util.Locale.ROOT);
  }

  /** An absolute URI with a host and, if any, a port from 1 to 65535; else {@code null}. */
  private static URI uri(String value) {
    try {
      URI uri = new URI(value);
      return uri.isAbsolute() && uri.getHost() != null && uri.getPort() != 0
          && uri.getPort() <= 65_535 ? uri : null;
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
