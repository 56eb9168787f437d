package dev.outboxer.kafka;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A single-node KRaft Kafka (broker and controller in one) in the test JVM, from the production
 * jars, listening on 127.0.0.1 only. Register it as a static {@code @RegisterExtension} field: it
 * starts before the class's first test and stops after its last ({@link #create()} and {@link
 * #destroy()} do the same outside JUnit). {@link #stop()} and {@link #start()} in between restart
 * it on the same ports and data, as a broker outage.
 *
 * <p>Topics are not auto-created: tests create theirs with {@link #createTopic}.
 *
 * <p>Public for other modules' tests, through this module's test-jar; not part of any API.
 */
public final class EmbeddedKafkaBroker implements BeforeAllCallback, AfterAllCallback {

  private static final int NODE_ID = 1;

  private Path dataDir;
  private int brokerPort;
  private Map<String, String> lastConfig;
  private KafkaRaftServer server;

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    create();
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    destroy();
  }

  /** Formats a new data directory and starts the broker on free ports (outside JUnit: a main). */
  void create() throws Exception {
    // A free port can be taken by another process before the broker binds it (builds share the
    // machine): then start over on new ports, a few times.
    for (int attempt = 1; ; attempt++) {
      dataDir = Files.createTempDirectory("outboxer-kafka-");
      brokerPort = freePort();
      int controllerPort = freePort();
      Map<String, String> config = config(controllerPort);
      format(config);
      try {
        start(config);
        awaitTransactions();
        return;
      } catch (RuntimeException e) {
        if (attempt == 3 || !portTaken(e)) {
          throw e;
        }
        stopQuietly();
        destroy();
      }
    }
  }

  /**
   * Initialises one transactional producer, so that the transaction log exists and its coordinator
   * is loaded before a test runs, as on any cluster that has run transactions before: on a fresh
   * broker the relay's first initTransactions would wait for that longer than a short test's
   * max.block.ms.
   */
  private void awaitTransactions() {
    Map<String, Object> config = Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
        ProducerConfig.TRANSACTIONAL_ID_CONFIG, "embedded-broker-warm-up",
        ProducerConfig.MAX_BLOCK_MS_CONFIG, 60_000,
        ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName(),
        ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
      producer.initTransactions();
    }
  }

  private static boolean portTaken(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (String.valueOf(cause.getMessage()).contains("Address already in use")) {
        return true;
      }
    }
    return false;
  }

  private synchronized void stopQuietly() {
    try {
      stop();
    } catch (RuntimeException e) {
      server = null;
    }
  }

  /** Stops the broker and deletes its data directory. */
  void destroy() throws IOException {
    stop();
    try (Stream<Path> files = Files.walk(dataDir)) {
      files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    }
  }

  /** {@code host:port} of the broker listener. */
  public String bootstrapServers() {
    return "127.0.0.1:" + brokerPort;
  }

  /** Stops the broker (a clean shutdown); clients see connection refused until {@link #start()}. */
  synchronized void stop() {
    if (server != null) {
      server.shutdown();
      server.awaitShutdown();
      server = null;
    }
  }

  /** Starts the broker again after {@link #stop()}, on the same ports and data. */
  synchronized void start() {
    if (server == null) {
      start(lastConfig);
    }
  }

  /** Creates a topic (replication factor 1) and waits until it exists. */
  public void createTopic(String name, int partitions, Map<String, String> configs) throws Exception {
    try (Admin admin = admin()) {
      admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(configs)))
          .all().get();
      awaitLeaders(admin, name, partitions);
    }
  }

  /**
   * The creation is acknowledged by the controller before the broker serves the new partitions: a
   * producer's first records could wait for a leader until their delivery timeout (seen in CI on
   * a loaded machine: the first batches of a test failed after 7.5 s). Returns once the broker's
   * metadata names a leader for every partition.
   */
  private static void awaitLeaders(Admin admin, String name, int partitions) throws Exception {
    long deadline = System.nanoTime() + java.time.Duration.ofSeconds(30).toNanos();
    while (true) {
      try {
        var description = admin.describeTopics(List.of(name)).allTopicNames().get().get(name);
        if (description.partitions().size() == partitions && description.partitions().stream()
            .allMatch(partition -> partition.leader() != null && !partition.leader().isEmpty())) {
          return;
        }
      } catch (java.util.concurrent.ExecutionException notYetKnown) {
        // UnknownTopicOrPartitionException until the broker has the topic: ask again.
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("Topic " + name + " has no leader for every partition after 30 s");
      }
      Thread.sleep(20);
    }
  }

  Admin admin() {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()));
  }

  private synchronized void start(Map<String, String> config) {
    lastConfig = config;
    server = new KafkaRaftServer(new KafkaConfig(config, false), Time.SYSTEM);
    try {
      server.startup();
    } catch (RuntimeException e) {
      stopQuietly();
      throw e;
    }
  }

  private Map<String, String> config(int controllerPort) {
    Map<String, String> config = new HashMap<>();
    config.put("process.roles", "broker,controller");
    config.put("node.id", String.valueOf(NODE_ID));
    config.put("controller.quorum.voters", NODE_ID + "@127.0.0.1:" + controllerPort);
    config.put("listeners",
        "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
    config.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
    config.put("controller.listener.names", "CONTROLLER");
    config.put("inter.broker.listener.name", "PLAINTEXT");
    config.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    config.put("log.dirs", dataDir.resolve("log").toString());
    config.put("auto.create.topics.enable", "false");
    config.put("offsets.topic.replication.factor", "1");
    config.put("offsets.topic.num.partitions", "1");
    config.put("transaction.state.log.replication.factor", "1");
    config.put("transaction.state.log.min.isr", "1");
    // One partition instead of 50: the first transactional producer (the relay's default) creates
    // the transaction log, and 50 partitions take longer than a short test's max.block.ms.
    config.put("transaction.state.log.num.partitions", "1");
    config.put("share.coordinator.state.topic.replication.factor", "1");
    config.put("share.coordinator.state.topic.min.isr", "1");
    config.put("group.initial.rebalance.delay.ms", "0");
    // A starved test JVM (2 shared cores) must not miss heartbeats long enough to be fenced.
    config.put("broker.session.timeout.ms", "30000");
    // Two cores shared with other builds: keep the thread count down.
    config.put("num.network.threads", "2");
    config.put("num.io.threads", "2");
    config.put("background.threads", "2");
    return config;
  }

  private void format(Map<String, String> config) throws Exception {
    String logDir = config.get("log.dirs");
    new Formatter()
        .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
        .setNodeId(NODE_ID)
        .setClusterId(Uuid.randomUuid().toString())
        .addDirectory(logDir)
        .setMetadataLogDirectory(logDir)
        .setControllerListenerName("CONTROLLER")
        .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
        .setReleaseVersion(MetadataVersion.latestProduction())
        .run();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

}
