package dev.outboxer.sqs;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import org.elasticmq.rest.sqs.SQSRestServer;
import org.elasticmq.rest.sqs.SQSRestServerBuilder;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;

/**
 * ElasticMQ, an SQS-compatible server, in the test JVM on 127.0.0.1 with SQS's strict limits
 * (message size, attribute count and characters, batch size). Register it as a static
 * {@code @RegisterExtension} field: it starts before the class's first test and stops after its
 * last. Queues live in memory.
 *
 * <p>Public for other modules' tests, through this module's test-jar; not part of any API.
 */
public final class EmbeddedElasticMq implements BeforeAllCallback, AfterAllCallback {

  /** The region the tests configure; ElasticMQ accepts any. */
  public static final String REGION = "us-east-1";

  /** ElasticMQ does not check credentials, but the SDK signs every request with some. */
  public static final String ACCESS_KEY_ID = "outboxer";
  public static final String SECRET_ACCESS_KEY = "outboxer-secret";

  private SQSRestServer server;
  private URI endpoint;
  private SqsClient client;

  @Override
  public void beforeAll(ExtensionContext context) throws IOException {
    int port = freePort();
    server = SQSRestServerBuilder.withInterface("127.0.0.1").withPort(port).start();
    server.waitUntilStarted();
    endpoint = URI.create("http://127.0.0.1:" + port);
    client = client(endpoint);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (client != null) {
      client.close();
    }
    if (server != null) {
      server.stopAndWait();
    }
  }

  public URI endpoint() {
    return endpoint;
  }

  /** A client of the tests' own, for creating queues and receiving messages. */
  public SqsClient client() {
    return client;
  }

  /** Creates a FIFO queue (the name must end in .fifo) and returns its URL. */
  public String createFifoQueue(String name) {
    return client.createQueue(request -> request.queueName(name).attributes(Map.of(
        QueueAttributeName.FIFO_QUEUE, "true",
        QueueAttributeName.VISIBILITY_TIMEOUT, "300"))).queueUrl();
  }

  /** Creates a standard queue and returns its URL. */
  String createStandardQueue(String name) {
    return client.createQueue(request -> request.queueName(name).attributes(Map.of(
        QueueAttributeName.VISIBILITY_TIMEOUT, "300"))).queueUrl();
  }

  /** The relay settings ({@code outbox.<name>.sqs.*} without prefix) for a queue here. */
  public Map<String, String> relaySettings(String queueUrl) {
    Map<String, String> settings = new HashMap<>();
    settings.put(SqsRelayProvider.QUEUE_URL, queueUrl);
    settings.put(SqsRelayProvider.REGION, REGION);
    settings.put(SqsRelayProvider.ACCESS_KEY_ID, ACCESS_KEY_ID);
    settings.put(SqsRelayProvider.SECRET_ACCESS_KEY, SECRET_ACCESS_KEY);
    return settings;
  }

  public static SqsClient client(URI endpoint) {
    return SqsClient.builder()
        .endpointOverride(endpoint)
        .region(Region.of(REGION))
        .httpClientBuilder(UrlConnectionHttpClient.builder())
        .credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(ACCESS_KEY_ID, SECRET_ACCESS_KEY)))
        .build();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
