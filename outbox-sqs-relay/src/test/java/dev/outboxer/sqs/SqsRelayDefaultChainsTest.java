package dev.outboxer.sqs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.outboxer.Ordering;
import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.testing.OutboxRecords;
import dev.outboxer.testing.TestRelayBatch;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Without {@code region} or static credentials the relay leaves them to the AWS SDK's default
 * chains, here fed through the SDK's system properties (the chains read the environment, the
 * profile files and the instance metadata too; those are switched off or pointed nowhere).
 */
class SqsRelayDefaultChainsTest {

  @RegisterExtension static final EmbeddedElasticMq SQS = new EmbeddedElasticMq();

  private static final String[] PROPERTIES = {"aws.region", "aws.accessKeyId",
      "aws.secretAccessKey", "aws.disableEc2Metadata", "aws.configFile",
      "aws.sharedCredentialsFile"};

  private final Map<String, String> saved = new HashMap<>();
  private final OutboxRecords records = new OutboxRecords("orders");

  @BeforeEach
  void isolateFromTheMachine() {
    assumeTrue(System.getenv("AWS_REGION") == null && System.getenv("AWS_DEFAULT_REGION") == null
        && System.getenv("AWS_ACCESS_KEY_ID") == null, "AWS settings in the environment");
    for (String property : PROPERTIES) {
      saved.put(property, System.getProperty(property));
    }
    System.setProperty("aws.disableEc2Metadata", "true");
    System.setProperty("aws.configFile", "/nonexistent/outboxer-aws-config");
    System.setProperty("aws.sharedCredentialsFile", "/nonexistent/outboxer-aws-credentials");
    System.clearProperty("aws.region");
  }

  @AfterEach
  void restore() {
    saved.forEach((property, value) -> {
      if (value == null) {
        System.clearProperty(property);
      } else {
        System.setProperty(property, value);
      }
    });
  }

  private static RelayContext context(String queue) {
    Map<String, String> settings = new HashMap<>();
    settings.put(SqsRelayProvider.QUEUE_NAME, queue);
    settings.put(SqsRelayProvider.ENDPOINT, SQS.endpoint().toString());
    return new RelayContext("orders", Ordering.GROUP, 1, Duration.ofSeconds(10), settings);
  }

  @Test
  void the_sdk_chains_supply_region_and_credentials_when_none_are_set() throws Exception {
    String queue = SQS.createFifoQueue("chains.fifo");
    System.setProperty("aws.region", EmbeddedElasticMq.REGION);
    System.setProperty("aws.accessKeyId", "from-the-chain");
    System.setProperty("aws.secretAccessKey", "chain-secret");

    try (Relay relay = new SqsRelayProvider().create(context("chains.fifo"))) {
      TestRelayBatch batch = TestRelayBatch.of(Ordering.GROUP, records.next(0, "a"));
      relay.relay(batch);
      assertThat(batch.confirmed()).hasSize(1);
    }
    assertThat(new QueueReader(SQS.client(), queue).poll()).isEqualTo(1);
  }

  @Test
  void no_region_anywhere_fails_the_deployment_naming_the_region_key() {
    assertThatThrownBy(() -> new SqsRelayProvider().create(context("nowhere.fifo")))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageStartingWith("The SQS client of outbox 'orders' cannot be created: ")
        .hasMessageEndingWith("Set outbox.orders.sqs.region (e.g. eu-west-1), or give the SDK a"
            + " region (AWS_REGION).")
        .extracting(e -> ((OutboxConfigurationException) e).key())
        .isEqualTo("outbox.orders.sqs.region");
  }

  @Test
  void missing_credentials_fail_the_batch_naming_the_keys() {
    System.setProperty("aws.region", EmbeddedElasticMq.REGION);
    System.clearProperty("aws.accessKeyId");
    System.clearProperty("aws.secretAccessKey");
    SQS.createFifoQueue("no-credentials.fifo");

    try (Relay relay = new SqsRelayProvider().create(context("no-credentials.fifo"))) {
      TestRelayBatch batch = TestRelayBatch.of(Ordering.GROUP, records.next(0, "a"));
      assertThatThrownBy(() -> relay.relay(batch))
          .isInstanceOf(SqsRelayException.class)
          .hasMessageContaining("could not look up the URL of SQS queue 'no-credentials.fifo'")
          .hasMessageContaining("the credentials come from the SDK's default chain")
          .hasMessageContaining("or set outbox.orders.sqs.access-key-id and"
              + " outbox.orders.sqs.secret-access-key");
      assertThat(batch.outcomes()).isEmpty();
    }
  }
}
