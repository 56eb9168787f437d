package dev.outboxer.sqs;

import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkException;

/** Turns SDK exceptions into the tail of an {@link SqsRelayException} message, with a hint. */
final class SqsErrors {

  private SqsErrors() {}

  static String describe(SdkException e, SqsSettings settings) {
    String text = e.getClass().getSimpleName() + ": " + e.getMessage();
    if (e instanceof AwsServiceException service) {
      if (service.isThrottlingException()) {
        return text + ". SQS throttled the calls and the SDK's retries ran out: a FIFO queue"
            + " takes 300 calls per second per API action (3,000 messages with batches of 10)"
            + " unless high throughput mode is on; lower the number of partitions or raise"
            + " " + settings.fullKey(SqsRelayProvider.BATCH_SIZE);
      }
      if (service.statusCode() == 403) {
        return text + ". The credentials were refused or lack sqs:SendMessage on the queue; "
            + credentialsSource(settings);
      }
      return text;
    }
    if (e instanceof ApiCallTimeoutException) {
      return text + " (" + settings.fullKey(SqsRelayProvider.API_CALL_TIMEOUT) + "="
          + settings.apiCallTimeout().toMillis() + "ms, or less when the batch deadline was"
          + " nearer)";
    }
    if (e instanceof ApiCallAttemptTimeoutException) {
      return text + " (" + settings.fullKey(SqsRelayProvider.API_CALL_ATTEMPT_TIMEOUT) + "="
          + settings.attemptTimeout().toMillis() + "ms)";
    }
    if (String.valueOf(e.getMessage()).contains("credentials")) {
      return text + ". " + credentialsSource(settings);
    }
    return text + endpointHint(settings);
  }

  private static String credentialsSource(SqsSettings settings) {
    return settings.accessKeyId().isPresent()
        ? "check " + settings.fullKey(SqsRelayProvider.ACCESS_KEY_ID) + " and "
            + settings.fullKey(SqsRelayProvider.SECRET_ACCESS_KEY)
        : "the credentials come from the SDK's default chain (environment, system properties,"
            + " profile, container or instance role); or set "
            + settings.fullKey(SqsRelayProvider.ACCESS_KEY_ID) + " and "
            + settings.fullKey(SqsRelayProvider.SECRET_ACCESS_KEY);
  }

  private static String endpointHint(SqsSettings settings) {
    return settings.endpoint()
        .map(endpoint -> " (endpoint " + endpoint + ")")
        .orElse(settings.region().map(region -> " (region " + region + ")").orElse(""));
  }
}
