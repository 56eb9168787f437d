package dev.outboxer.sqs;

import dev.outboxer.spi.MessageConstraints;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.spi.RelayProvider;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Creates the Amazon SQS relay of every outbox configured with {@code outbox.<name>.relay=sqs}.
 *
 * <h2>Settings</h2>
 * <table>
 *   <caption>{@code outbox.<name>.sqs.*} keys</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@value #QUEUE_URL}</td><td>none: this or {@value #QUEUE_NAME} is required</td>
 *       <td>the queue's URL, e.g. {@code https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo}</td></tr>
 *   <tr><td>{@value #QUEUE_NAME}</td><td>none</td>
 *       <td>the queue's name instead of its URL; the URL is asked of SQS (GetQueueUrl) before the
 *       first batch</td></tr>
 *   <tr><td>{@value #REGION}</td><td>from the queue URL's host, else the SDK's region chain</td>
 *       <td>the AWS region, e.g. {@code eu-west-1}</td></tr>
 *   <tr><td>{@value #ENDPOINT}</td><td>the region's AWS endpoint; for a queue URL outside AWS its
 *       scheme, host and port</td><td>endpoint override, e.g. ElasticMQ or LocalStack</td></tr>
 *   <tr><td>{@value #ACCESS_KEY_ID}, {@value #SECRET_ACCESS_KEY}, {@value #SESSION_TOKEN}</td>
 *       <td>the SDK's default credentials chain</td><td>static credentials; the first two go
 *       together</td></tr>
 *   <tr><td>{@value #UNGROUPED_GROUP_IDS}</td><td>{@value #DEFAULT_UNGROUPED_GROUP_COUNT} ids
 *       {@code outbox-ungrouped-0} ... {@code -9}</td><td>FIFO: the MessageGroupIds that messages
 *       without group key are spread over (comma-separated)</td></tr>
 *   <tr><td>{@value #TOTAL_GROUP_ID}</td><td>the outbox name</td><td>FIFO with {@code
 *       ordering=total}: the one MessageGroupId of every message</td></tr>
 *   <tr><td>{@value #DEDUPLICATION_ID_PREFIX}</td><td>empty</td><td>FIFO: put before the message
 *       id in MessageDeduplicationId, for a queue that several databases send to</td></tr>
 *   <tr><td>{@value #BATCH_SIZE}</td><td>{@value #DEFAULT_BATCH_SIZE}</td><td>entries per
 *       SendMessageBatch call, 1 to 10</td></tr>
 *   <tr><td>{@value #MAX_MESSAGE_SIZE}</td><td>{@value #DEFAULT_MAX_MESSAGE_SIZE} (256 KiB)</td>
 *       <td>the queue's maximum message size in bytes, 1024 to 1048576</td></tr>
 *   <tr><td>{@value #API_CALL_TIMEOUT}</td><td>3/4 of {@code outbox.<name>.relay-timeout}</td>
 *       <td>one SendMessageBatch call, SDK retries included</td></tr>
 *   <tr><td>{@value #API_CALL_ATTEMPT_TIMEOUT}</td><td>1/3 of the API call timeout</td>
 *       <td>one HTTP attempt</td></tr>
 *   <tr><td>{@value #CONNECT_TIMEOUT}</td><td>2 s, at most the attempt timeout</td>
 *       <td>opening a connection</td></tr>
 * </table>
 * Every key is checked by {@link #validate} at deployment, on every node, without connecting:
 * all problems are reported at once, each naming the key, the value and the fix; an unknown key
 * names the nearest known one. A queue whose name does not end in {@code .fifo} is a standard
 * queue, which does not keep order: it is refused for {@code ordering=group} and {@code total}.
 *
 * <h2>Guarantees</h2>
 * See {@link dev.outboxer.sqs the package documentation}: message mapping, the order a FIFO queue
 * keeps, the five-minute deduplication window, and what a consumer receives.
 */
@ApplicationScoped
public class SqsRelayProvider implements RelayProvider {

  /** The provider name, used in {@code outbox.<name>.relay=sqs} and as the key prefix. */
  public static final String NAME = "sqs";

  /** Key of the queue URL. */
  public static final String QUEUE_URL = "queue-url";

  /** Key of the queue name, an alternative to {@value #QUEUE_URL}. */
  public static final String QUEUE_NAME = "queue-name";

  /** Key of the AWS region. */
  public static final String REGION = "region";

  /** Key of the endpoint override (ElasticMQ, LocalStack, a VPC endpoint). */
  public static final String ENDPOINT = "endpoint";

  /** Key of the access key id of static credentials. */
  public static final String ACCESS_KEY_ID = "access-key-id";

  /** Key of the secret access key of static credentials; never written to a message or log. */
  public static final String SECRET_ACCESS_KEY = "secret-access-key";

  /** Key of the session token of temporary static credentials; never written to a message. */
  public static final String SESSION_TOKEN = "session-token";

  /** Key of the MessageGroupIds for messages without group key (FIFO queues). */
  public static final String UNGROUPED_GROUP_IDS = "ungrouped-group-ids";

  /** How many ungrouped MessageGroupIds there are by default. */
  public static final int DEFAULT_UNGROUPED_GROUP_COUNT = 10;

  /** Key of the MessageGroupId of every message in {@code total} ordering (FIFO queues). */
  public static final String TOTAL_GROUP_ID = "total-group-id";

  /** Key of the prefix of each MessageDeduplicationId (FIFO queues). */
  public static final String DEDUPLICATION_ID_PREFIX = "deduplication-id-prefix";

  /** Key of the number of entries per SendMessageBatch call. */
  public static final String BATCH_SIZE = "batch-size";

  /** SQS's maximum, and the default. */
  public static final int DEFAULT_BATCH_SIZE = 10;

  /** Key of the queue's maximum message size, in bytes. */
  public static final String MAX_MESSAGE_SIZE = "max-message-size";

  /** 256 KiB: what every SQS queue accepts (queues can be raised to 1 MiB). */
  public static final int DEFAULT_MAX_MESSAGE_SIZE = 262_144;

  /** Key of the time one SendMessageBatch call may take, SDK retries included. */
  public static final String API_CALL_TIMEOUT = "api-call-timeout";

  /** Key of the time one HTTP attempt may take. */
  public static final String API_CALL_ATTEMPT_TIMEOUT = "api-call-attempt-timeout";

  /** Key of the time opening a connection may take. */
  public static final String CONNECT_TIMEOUT = "connect-timeout";

  /** For CDI. */
  public SqsRelayProvider() {}

  /**
   * @return {@value #NAME}
   */
  @Override
  public String name() {
    return NAME;
  }

  /**
   * Checks every {@code outbox.<name>.sqs.*} key without connecting anywhere.
   *
   * @param context the outbox and its settings
   * @throws dev.outboxer.OutboxConfigurationException the first problem, with every other one
   *     {@linkplain Throwable#getSuppressed() suppressed}
   */
  @Override
  public void validate(RelayContext context) {
    SqsSettings.from(context);
  }

  /**
   * What SQS cannot carry: attribute names outside its rules, attribute values that are empty or
   * hold characters SQS refuses, a type or group key with such characters, an empty payload, and a
   * message that as sent would have more than 10 attributes or exceed the maximum message size
   * (its body as text or Base64, every attribute counted, ids at their largest). The relay checks
   * stored records again before it sends; see the package documentation.
   *
   * @param context the outbox and its settings (already validated)
   * @return thread-safe constraints
   */
  @Override
  public MessageConstraints constraints(RelayContext context) {
    return new SqsMessageConstraints(SqsSettings.from(context));
  }

  /**
   * Validates the settings and creates the relay with its own SQS client. Connects nowhere: an
   * endpoint that is down at start-up fails batches, not the deployment; a queue given by name is
   * looked up before the first batch.
   *
   * @param context the outbox and its settings
   * @return a thread-safe relay that owns one SQS client, released by {@link Relay#close()}
   * @throws dev.outboxer.OutboxConfigurationException if a setting is missing or invalid, or no
   *     region can be found
   */
  @Override
  public Relay create(RelayContext context) {
    return SqsRelay.create(SqsSettings.from(context));
  }
}
