package dev.outboxer.inbox;

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
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A single-node KRaft Kafka in the test JVM, from the production jars, on 127.0.0.1: the smallest
 * form of outbox-kafka-relay's EmbeddedKafkaBroker (that module publishes no test jar).
 */
final class TestKafka implements AutoCloseable {

  private final Path dataDir;
  private final int port;
  private final KafkaRaftServer server;

  private TestKafka(Path dataDir, int port, KafkaRaftServer server) {
    this.dataDir = dataDir;
    this.port = port;
    this.server = server;
  }

  static TestKafka start() throws Exception {
    Path dataDir = Files.createTempDirectory("outboxer-inbox-kafka-");
    int port = freePort();
    int controllerPort = freePort();
    Map<String, String> config = new HashMap<>();
    config.put("process.roles", "broker,controller");
    config.put("node.id", "1");
    config.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
    config.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
    config.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
    config.put("controller.listener.names", "CONTROLLER");
    config.put("inter.broker.listener.name", "PLAINTEXT");
    config.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    config.put("log.dirs", dataDir.resolve("log").toString());
    config.put("auto.create.topics.enable", "false");
    config.put("offsets.topic.replication.factor", "1");
    config.put("offsets.topic.num.partitions", "1");
    config.put("transaction.state.log.replication.factor", "1");
    config.put("transaction.state.log.min.isr", "1");
    // One partition instead of 50: the relay's first transactional producer creates the log.
    config.put("transaction.state.log.num.partitions", "1");
    config.put("share.coordinator.state.topic.replication.factor", "1");
    config.put("share.coordinator.state.topic.min.isr", "1");
    config.put("group.initial.rebalance.delay.ms", "0");
    config.put("broker.session.timeout.ms", "30000");
    config.put("num.network.threads", "2");
    config.put("num.io.threads", "2");
    config.put("background.threads", "2");
    String logDir = config.get("log.dirs");
    new Formatter()
        .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
        .setNodeId(1)
        .setClusterId(Uuid.randomUuid().toString())
        .addDirectory(logDir)
        .setMetadataLogDirectory(logDir)
        .setControllerListenerName("CONTROLLER")
        .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
        .setReleaseVersion(MetadataVersion.latestProduction())
        .run();
    KafkaRaftServer server = new KafkaRaftServer(new KafkaConfig(config, false), Time.SYSTEM);
    server.startup();
    return new TestKafka(dataDir, port, server);
  }

  String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  void createTopic(String name, int partitions) throws Exception {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()))) {
      admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
    }
  }

  @Override
  public void close() throws IOException {
    server.shutdown();
    server.awaitShutdown();
    try (Stream<Path> files = Files.walk(dataDir)) {
      files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
