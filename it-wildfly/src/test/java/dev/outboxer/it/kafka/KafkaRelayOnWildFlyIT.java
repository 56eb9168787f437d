package dev.outboxer.it.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.it.PreparedPostgresSchema;
import dev.outboxer.it.RequiresPostgres;
import dev.outboxer.kafka.OutboxKafkaHeaders;
import java.io.File;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.EmptyAsset;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.jboss.shrinkwrap.resolver.api.maven.Maven;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Kafka relay inside WildFly: a WAR with outbox-cdi, outbox-kafka-relay and kafka-clients in
 * {@code WEB-INF/lib} publishes through a {@code @Transactional} bean (PostgreSQL XA); the relay's
 * transactional producers send to the broker in this JVM ({@link KafkaOnTheClient}), where a
 * {@code read_committed} consumer checks what arrived. Client side only: the test drives the
 * application over HTTP.
 */
@RequiresPostgres
// Outboxer's tables before the WAR starts: this application has no SchemaSetup of its own.
@ExtendWith(PreparedPostgresSchema.class)
@ExtendWith(KafkaOnTheClient.class)
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class KafkaRelayOnWildFlyIT {

  private static final Duration DELIVERY = Duration.ofSeconds(60);

  @Deployment(testable = false)
  static WebArchive deployment() {
    String config = String.join("\n",
        "outbox.events.relay=kafka",
        "outbox.events.kafka.topic=" + KafkaOnTheClient.TOPIC,
        "outbox.events.kafka.bootstrap.servers=" + KafkaOnTheClient.bootstrapServers(),
        "outbox.events.ordering=group",
        "outbox.events.partitions=4",
        "");
    return ShrinkWrap.create(WebArchive.class, "kafka-events.war")
        .addClasses(KafkaEvent.class, KafkaEventPublisher.class, KafkaEventPublisher.RolledBack.class,
            KafkaEventResource.class, KafkaEventsApplication.class, KafkaOutboxPersistence.class)
        .addAsResource("kafka/persistence.xml", "META-INF/persistence.xml")
        .addAsResource(new StringAsset(config), "META-INF/microprofile-config.properties")
        .addAsWebInfResource(EmptyAsset.INSTANCE, "beans.xml")
        .addAsLibraries(libraries());
  }

  /**
   * outbox-api, outbox-cdi, outbox-kafka-relay and kafka-clients with its compression libraries;
   * not SLF4J, which WildFly gives every deployment (kafka-clients logs through the server's).
   */
  private static File[] libraries() {
    return Arrays.stream(Maven.configureResolver().workOffline().loadPomFromFile("pom.xml")
            .resolve("dev.outboxer:outbox-cdi", "dev.outboxer:outbox-kafka-relay")
            .withTransitivity().asFile())
        .filter(jar -> !jar.getName().startsWith("slf4j-"))
        .toArray(File[]::new);
  }

  @ArquillianResource
  URL base;

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void events_published_in_the_callers_transaction_reach_the_topic_each_once_in_group_order() throws Exception {
    String run = UUID.randomUUID().toString().substring(0, 8);
    Map<String, List<Long>> published = new LinkedHashMap<>();
    // Six groups, interleaved: one event per transaction, then three in one transaction.
    for (int round = 0; round < 3; round++) {
      for (int g = 0; g < 6; g++) {
        String group = "group-" + g + "-" + run;
        published.computeIfAbsent(group, key -> new ArrayList<>()).addAll(publish(group, round, 1, false, 200));
      }
    }
    for (int g = 0; g < 6; g++) {
      String group = "group-" + g + "-" + run;
      published.get(group).addAll(publish(group, 3, 3, false, 200));
    }

    Map<String, List<ConsumerRecord<String, byte[]>>> received = readUntil(published.keySet(),
        published.values().stream().mapToInt(List::size).sum());
    Set<Long> seen = new HashSet<>();
    published.forEach((group, ids) -> {
      List<ConsumerRecord<String, byte[]>> records = received.getOrDefault(group, List.of());
      assertThat(records).extracting(KafkaRelayOnWildFlyIT::outboxId)
          .as("the records of %s in topic order", group).containsExactlyElementsOf(ids);
      assertThat(records).extracting(ConsumerRecord::partition).as("one Kafka partition per group").hasSize(ids.size())
          .containsOnly(records.get(0).partition());
      for (int n = 0; n < records.size(); n++) {
        ConsumerRecord<String, byte[]> record = records.get(n);
        assertThat(header(record, OutboxKafkaHeaders.OUTBOX)).isEqualTo("events");
        assertThat(header(record, OutboxKafkaHeaders.GROUP_KEY)).isEqualTo(group);
        assertThat(new String(record.value(), StandardCharsets.UTF_8))
            .contains("\"group\":\"" + group + "\"", "\"sequence\":" + n);
        assertThat(seen.add(outboxId(record))).as("record %s once", outboxId(record)).isTrue();
      }
    });
  }

  @Test
  void events_of_a_rolled_back_transaction_never_reach_the_topic() throws Exception {
    String group = "rollback-" + UUID.randomUUID().toString().substring(0, 8);
    List<Long> rolledBack = publish(group, 0, 2, true, 409);
    assertThat(rolledBack).as("publish returned ids inside the transaction").hasSize(2).allMatch(id -> id > 0);
    List<Long> committed = publish(group, 2, 1, false, 200);

    // The committed event comes after anything published before in its group (same Kafka
    // partition, relayed in order): once it is here, a leaked event of the rolled-back transaction
    // would be here too.
    List<ConsumerRecord<String, byte[]>> records = readUntil(Set.of(group), 1).getOrDefault(group, List.of());
    assertThat(records).extracting(KafkaRelayOnWildFlyIT::outboxId).containsExactlyElementsOf(committed);
  }

  /** POSTs a publish request, expects the status, returns the ids the application published. */
  private List<Long> publish(String group, int first, int count, boolean fail, int status) throws Exception {
    URI uri = base.toURI().resolve("api/events?group=" + group + "&first=" + first + "&count=" + count + "&fail=" + fail);
    HttpResponse<String> response = http.send(HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.noBody())
        .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as("POST %s: %s", uri, response.body()).isEqualTo(status);
    return Arrays.stream(response.body().strip().split(",")).map(Long::valueOf).toList();
  }

  /**
   * Reads the whole topic, committed records only, until at least {@code expected} records of the
   * groups arrived and then up to the end offsets (so that a duplicate behind them would be seen);
   * returns the groups' records in topic order.
   */
  private static Map<String, List<ConsumerRecord<String, byte[]>>> readUntil(Collection<String> groups, int expected) {
    Map<String, Object> config = Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaOnTheClient.bootstrapServers(),
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
        ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
        ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    Map<String, List<ConsumerRecord<String, byte[]>>> byGroup = new LinkedHashMap<>();
    try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config)) {
      List<TopicPartition> partitions = consumer.partitionsFor(KafkaOnTheClient.TOPIC).stream()
          .map(info -> new TopicPartition(info.topic(), info.partition())).toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      long deadline = System.nanoTime() + DELIVERY.toNanos();
      int found = 0;
      while (System.nanoTime() < deadline) {
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(500))) {
          if (groups.contains(record.key())) {
            byGroup.computeIfAbsent(record.key(), key -> new ArrayList<>()).add(record);
            found++;
          }
        }
        if (found >= expected && caughtUp(consumer, partitions)) {
          break;
        }
      }
    }
    return byGroup;
  }

  private static boolean caughtUp(KafkaConsumer<?, ?> consumer, List<TopicPartition> partitions) {
    Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
    return partitions.stream().allMatch(partition -> consumer.position(partition) >= ends.get(partition));
  }

  private static long outboxId(ConsumerRecord<String, byte[]> record) {
    return Long.parseLong(header(record, OutboxKafkaHeaders.ID));
  }

  private static String header(ConsumerRecord<?, ?> record, String name) {
    Header header = record.headers().lastHeader(name);
    return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
  }
}
