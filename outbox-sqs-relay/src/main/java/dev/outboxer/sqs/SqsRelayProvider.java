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
 * The {@code outbox.<name>.sqs.*} keys ({@value #QUEUE_URL} or {@value #QUEUE_NAME}, {@value
 * #REGION}, {@value #ENDPOINT}, {@value #ACCESS_KEY_ID}, {@value #SECRET_ACCESS_KEY}, {@value
 * #SESSION_TOKEN}, {@value #UNGROUPED_GROUP_IDS}, {@value #TOTAL_GROUP_ID}, {@value
 * #DEDUPLICATION_ID_PREFIX}, {@value #BATCH_SIZE}, {@value #MAX_MESSAGE_SIZE}, {@value
 * #API_CALL_TIMEOUT}, {@value #API_CALL_ATTEMPT_TIMEOUT}, {@value #CONNECT_TIMEOUT}), each with
 * its type, range, default and meaning, are declared once and listed by {@link
 * SqsSettingsCatalog} for the configuration reference. They are read with the SPI's {@link
 * dev.outboxer.spi.SettingsReader}; the secret access key and the session token are never shown.
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

  /** Key of the MessageGroupId of every message in {@code total} ordering (FIFO queues). */
  public static final String TOTAL_GROUP_ID = "total-group-id";

  /** Key of the prefix of each MessageDeduplicationId (FIFO queues). */
  public static final String DEDUPLICATION_ID_PREFIX = "deduplication-id-prefix";

  /** Key of the number of entries per SendMessageBatch call. */
  public static final String BATCH_SIZE = "batch-size";

  /** Key of the queue's maximum message size, in bytes. */
  public static final String MAX_MESSAGE_SIZE = "max-message-size";

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
