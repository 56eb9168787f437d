package dev.outboxer.sqs;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.sqs.SqsMessageMapping.Mapped;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayBatch;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.SqsClientBuilder;
import software.amazon.awssdk.services.sqs.model.BatchResultErrorEntry;
import software.amazon.awssdk.services.sqs.model.GetQueueUrlRequest;
import software.amazon.awssdk.services.sqs.model.QueueDoesNotExistException;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequest;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResponse;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchResultEntry;
import software.amazon.awssdk.utils.SdkAutoCloseable;

/**
 * The relay of one outbox: one SQS client, shared by the outbox's partition workers ({@link
 * SqsClient} is thread-safe; the only other state is the queue URL, looked up once).
 */
final class SqsRelay implements Relay {

  private final SqsSettings settings;
  private final SqsClient client;
  private final SdkAutoCloseable ownedCredentials;
  private final SqsMessageMapping mapping;
  private volatile String queueUrl;
  private volatile boolean closed;

  SqsRelay(SqsSettings settings, SqsClient client, SdkAutoCloseable ownedCredentials) {
    this.settings = settings;
    this.client = client;
    this.ownedCredentials = ownedCredentials;
    this.mapping = new SqsMessageMapping(settings);
    this.queueUrl = settings.queueUrl().map(Object::toString).orElse(null);
  }

  static SqsRelay create(SqsSettings settings) {
    AwsCredentialsProvider credentials = credentials(settings);
    SqsClientBuilder builder = SqsClient.builder()
        .httpClientBuilder(UrlConnectionHttpClient.builder()
            .connectionTimeout(settings.connectTimeout())
            .socketTimeout(settings.attemptTimeout()))
        .overrideConfiguration(configuration -> configuration
            .apiCallTimeout(settings.apiCallTimeout())
            .apiCallAttemptTimeout(settings.attemptTimeout()))
        .credentialsProvider(credentials);
    settings.region().map(Region::of).ifPresent(builder::region);
    settings.endpoint().ifPresent(builder::endpointOverride);
    try {
      return new SqsRelay(settings, builder.build(),
          credentials instanceof SdkAutoCloseable owned ? owned : null);
    } catch (SdkException e) {
      // Without a region setting the builder asks the SDK's region chain (AWS_REGION, the
      // profile, the instance metadata), which is the only thing that can fail here.
      String key = settings.fullKey(SqsRelayProvider.REGION);
      OutboxConfigurationException invalid = new OutboxConfigurationException(key, "The SQS"
          + " client of outbox '" + settings.outbox() + "' cannot be created: " + e.getMessage()
          + ". Set " + key + " (e.g. eu-west-1), or give the SDK a region (AWS_REGION).");
      invalid.initCause(e);
      throw invalid;
    }
  }

  private static AwsCredentialsProvider credentials(SqsSettings settings) {
    if (settings.accessKeyId().isEmpty()) {
      // Resolved lazily, at the first call: missing credentials fail batches, not the deployment.
      return DefaultCredentialsProvider.builder().build();
    }
    String id = settings.accessKeyId().get();
    String secret = settings.secretAccessKey().orElseThrow();
    return StaticCredentialsProvider.create(settings.sessionToken()
        .<AwsCredentials>map(
            token -> AwsSessionCredentials.create(id, secret, token))
        .orElseGet(() -> AwsBasicCredentials.create(id, secret)));
  }

  /*
   * Why waves: SendMessageBatch reports an outcome per entry, and a FIFO queue keeps the order of
   * the entries of one group within a call; but when an entry fails, SQS still enqueues the later
   * entries of its group in the same call, and the failed one's retry would land behind them. So,
   * like the Kafka relay, a call holds at most one record per ordering unit while the outcome of
   * the unit's earlier record is unknown: wave k holds the k-th record of every unit, and wave k+1
   * starts once every outcome of wave k is in. Within a wave the records go out in calls of at
   * most batch-size entries and max-message-size bytes, one after the other.
   */
  /**
   * {@code false}: the relay sends through its SQS client (SQS has no transactions) and touches no database, so its
   * batches run in plain database transactions where Outboxer has a data source.
   */
  @Override
  public boolean usesWorkerTransaction() {
    return false;
  }

  @Override
  public void relay(RelayBatch batch) {
    if (closed) {
      throw new SqsRelayException("The sqs relay of outbox '" + settings.outbox() + "' is closed"
          + " (Outboxer is shutting down); the batch is retried later");
    }
    String url = queueUrl(batch);
    for (List<OutboxRecord> wave : batch.waves()) {
      List<Mapped> ready = new ArrayList<>(wave.size());
      for (OutboxRecord record : wave) {
        if (batch.heldBack(record)) {
          continue; // an earlier record of its unit failed, or the claim lapsed
        }
        Mapped mapped = mapping.map(record, Long.toString(record.id()), batch.fencingToken());
        if (mapped.refused()) {
          batch.fail(record, new SqsRelayException(describe(record) + " can never be sent to "
              + describeQueue(url) + ": " + mapped.refusal()));
        } else {
          ready.add(mapped);
        }
      }
      for (List<Mapped> call : calls(ready)) {
        if (!batch.claimHeld()) {
          return; // the next owner of the partition sends these
        }
        Duration left = Duration.between(Instant.now(), batch.deadline());
        if (left.isNegative() || left.isZero()) {
          return; // what is left unreported counts as failed and is retried
        }
        send(batch, url, call, left.compareTo(settings.apiCallTimeout()) < 0
            ? left : settings.apiCallTimeout());
      }
    }
  }

  private void send(RelayBatch batch, String url, List<Mapped> call, Duration timeout) {
    Map<String, OutboxRecord> byEntryId = new HashMap<>();
    List<SendMessageBatchRequestEntry> entries = new ArrayList<>(call.size());
    for (Mapped mapped : call) {
      byEntryId.put(mapped.entry().id(), mapped.record());
      entries.add(mapped.entry());
    }
    SendMessageBatchResponse response;
    try {
      response = client.sendMessageBatch(SendMessageBatchRequest.builder()
          .queueUrl(url)
          .entries(entries)
          .overrideConfiguration(request -> request.apiCallTimeout(timeout))
          .build());
    } catch (QueueDoesNotExistException e) {
      throw missingQueue(url, e);
    } catch (SdkException e) {
      throw new SqsRelayException("Outbox '" + settings.outbox() + "' could not send "
          + call.size() + " message(s) to " + describeQueue(url) + "; the batch is retried with"
          + " backoff: " + SqsErrors.describe(e, settings), e);
    }
    if (!batch.claimHeld()) {
      // The claim lapsed during the call: this batch's transaction cannot delete anything any
      // more, and the partition's next owner sends these records again (deduplicated by SQS
      // within five minutes).
      return;
    }
    Set<String> reported = new HashSet<>();
    for (SendMessageBatchResultEntry sent : response.successful()) {
      OutboxRecord record = byEntryId.get(sent.id());
      if (record != null && reported.add(sent.id())) {
        batch.confirm(record);
      }
    }
    for (BatchResultErrorEntry failed : response.failed()) {
      OutboxRecord record = byEntryId.get(failed.id());
      if (record != null && reported.add(failed.id())) {
        String suspect = SqsMessageMapping.suspectHeader(record);
        batch.fail(record, new SqsRelayException(describe(record) + " was refused by "
            + describeQueue(url) + ": " + failed.code() + ": " + failed.message()
            + (Boolean.TRUE.equals(failed.senderFault()) ? "" : " (a fault on SQS's side)")
            + (suspect == null ? "" : "; probably because " + suspect)));
      }
    }
    for (Map.Entry<String, OutboxRecord> entry : byEntryId.entrySet()) {
      if (!reported.contains(entry.getKey())) {
        batch.fail(entry.getValue(), new SqsRelayException(describe(entry.getValue())
            + " got no outcome from " + describeQueue(url) + " in the SendMessageBatch response;"
            + " it is sent again"));
      }
    }
  }

  /** Splits a wave into SendMessageBatch calls within the entry and size limits. */
  private List<List<Mapped>> calls(List<Mapped> ready) {
    List<List<Mapped>> calls = new ArrayList<>();
    List<Mapped> current = new ArrayList<>();
    long size = 0;
    for (Mapped mapped : ready) {
      if (!current.isEmpty() && (current.size() == settings.batchSize()
          || size + mapped.size() > settings.maxMessageSize())) {
        calls.add(current);
        current = new ArrayList<>();
        size = 0;
      }
      current.add(mapped);
      size += mapped.size();
    }
    if (!current.isEmpty()) {
      calls.add(current);
    }
    return calls;
  }

  /** The queue URL: configured, or looked up by name once (a failed look-up fails the batch). */
  private String queueUrl(RelayBatch batch) {
    String url = queueUrl;
    if (url != null) {
      return url;
    }
    synchronized (this) {
      if (queueUrl == null) {
        Duration left = Duration.between(Instant.now(), batch.deadline());
        try {
          queueUrl = client.getQueueUrl(GetQueueUrlRequest.builder()
              .queueName(settings.queueName())
              .overrideConfiguration(request -> request.apiCallTimeout(
                  left.compareTo(settings.apiCallTimeout()) < 0 && !left.isNegative()
                      ? left : settings.apiCallTimeout()))
              .build()).queueUrl();
        } catch (QueueDoesNotExistException e) {
          throw missingQueue(null, e);
        } catch (SdkException e) {
          throw new SqsRelayException("Outbox '" + settings.outbox() + "' could not look up the"
              + " URL of SQS queue '" + settings.queueName() + "' (" + settings.queueSetting()
              + "); the batch is retried with backoff: " + SqsErrors.describe(e, settings), e);
        }
      }
      return queueUrl;
    }
  }

  private SqsRelayException missingQueue(String url, QueueDoesNotExistException e) {
    return new SqsRelayException("SQS queue '" + settings.queueName() + "' of outbox '"
        + settings.outbox() + "' does not exist" + (url == null ? "" : " at " + url) + " ("
        + settings.queueSetting() + "): create it, or fix the setting; the batch is retried with"
        + " backoff: " + SqsErrors.describe(e, settings), e);
  }

  /** Releases the SQS client (and the default credentials chain it owns). */
  @Override
  public void close() {
    if (!closed) {
      closed = true;
      client.close();
      if (ownedCredentials != null) {
        ownedCredentials.close();
      }
    }
  }

  @Override
  public String toString() {
    return "SqsRelay[outbox=" + settings.outbox() + ", queue=" + settings.queueName() + "]";
  }

  private String describe(OutboxRecord record) {
    return "Outbox '" + settings.outbox() + "' message " + record.id() + " (type " + record.type()
        + ")";
  }

  private String describeQueue(String url) {
    return "SQS queue " + url + " (" + (settings.queueUrl().isPresent()
        ? settings.fullKey(SqsRelayProvider.QUEUE_URL) : settings.queueSetting()) + ")";
  }
}
