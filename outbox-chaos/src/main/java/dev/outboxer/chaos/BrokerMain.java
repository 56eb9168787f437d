package dev.outboxer.chaos;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.activemq.artemis.api.core.QueueConfiguration;
import org.apache.activemq.artemis.api.core.RoutingType;
import org.apache.activemq.artemis.core.config.impl.ConfigurationImpl;
import org.apache.activemq.artemis.core.server.embedded.EmbeddedActiveMQ;
import org.apache.activemq.artemis.core.settings.impl.AddressSettings;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A broker in its own process, on 127.0.0.1 only: ActiveMQ Artemis ({@code kind=jms}, TCP acceptor,
 * no persistence, the queue {@value NodeConfig#QUEUE_NAME}) or a single-node KRaft Kafka ({@code
 * kind=kafka}, the topic {@value NodeConfig#TOPIC} with one topic partition per outbox partition).
 * Writes {@code host:port} to {@code broker.address} in the run directory when it is ready, then
 * runs until killed. The Kafka part follows outbox-kafka-relay's test broker
 * (EmbeddedKafkaBroker), with production jars only.
 *
 * <p>Arguments: {@code kind=jms|kafka}, {@code dir=<run directory>} and the run's settings.
 */
public final class BrokerMain {

  private BrokerMain() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(NodeArgs.value(args, "dir"));
    ChaosSettings settings = ChaosSettings.parse(NodeArgs.settings(args));
    String kind = NodeArgs.value(args, "kind");
    int port = freePort();
    if (kind.equals("jms")) {
      startArtemis(port);
    } else if (kind.equals("kafka")) {
      startKafka(dir, port, settings.partitions());
    } else {
      throw new IllegalArgumentException("kind=" + kind + " is not a chaos broker: use jms or kafka");
    }
    Path ready = dir.resolve("broker.address");
    Files.writeString(dir.resolve("broker.address.tmp"), "127.0.0.1:" + port);
    Files.move(dir.resolve("broker.address.tmp"), ready);
    System.out.println("chaos broker ready: " + kind + " on 127.0.0.1:" + port);
    while (true) {
      Thread.sleep(60_000);
    }
  }

  private static void startArtemis(int port) throws Exception {
    ConfigurationImpl config = new ConfigurationImpl();
    config.setName("outboxer-chaos")
        .setPersistenceEnabled(false)
        .setSecurityEnabled(false)
        .setJMXManagementEnabled(false)
        .addAcceptorConfiguration("tcp", "tcp://127.0.0.1:" + port)
        .addAddressSetting("#", new AddressSettings().setAutoCreateAddresses(false).setAutoCreateQueues(false));
    EmbeddedActiveMQ broker = new EmbeddedActiveMQ().setConfiguration(config).start();
    broker.getActiveMQServer().createQueue(QueueConfiguration.of(NodeConfig.QUEUE_NAME)
        .setAddress(NodeConfig.QUEUE_NAME).setRoutingType(RoutingType.ANYCAST).setAutoCreateAddress(true));
  }

  private static void startKafka(Path dir, int port, int partitions) throws Exception {
    Path logDir = Files.createDirectories(dir.resolve("kafka-data"));
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
    config.put("log.dirs", logDir.toString());
    config.put("auto.create.topics.enable", "false");
    config.put("offsets.topic.replication.factor", "1");
    config.put("offsets.topic.num.partitions", "1");
    config.put("transaction.state.log.replication.factor", "1");
    config.put("transaction.state.log.min.isr", "1");
    config.put("share.coordinator.state.topic.replication.factor", "1");
    config.put("share.coordinator.state.topic.min.isr", "1");
    config.put("group.initial.rebalance.delay.ms", "0");
    config.put("broker.session.timeout.ms", "30000");
    config.put("num.network.threads", "2");
    config.put("num.io.threads", "2");
    config.put("background.threads", "2");
    new Formatter()
        .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
        .setNodeId(1)
        .setClusterId(Uuid.randomUuid().toString())
        .addDirectory(logDir.toString())
        .setMetadataLogDirectory(logDir.toString())
        .setControllerListenerName("CONTROLLER")
        .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
        .setReleaseVersion(MetadataVersion.latestProduction())
        .run();
    new KafkaRaftServer(new KafkaConfig(config, false), Time.SYSTEM).startup();
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port))) {
      admin.createTopics(List.of(new NewTopic(NodeConfig.TOPIC, partitions, (short) 1))).all().get();
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
