package dev.outboxer.kafka;

import dev.outboxer.testing.OutboxMetricsProbe;
import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.OutboxMessage;
import dev.outboxer.cdi.internal.metrics.OutboxMetrics;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Measures the whole path, not a test: how fast the real partition workers drain a backlog of
 * 100,000 messages from PostgreSQL into the embedded Kafka broker (same JVM) through the Kafka
 * relay, with 4 outbox partitions and a 4-partition topic.
 *
 * <p>Each run fills the backlog with a publish-only node ({@code outbox.worker=none}), closes it,
 * then starts a draining node on the same tables ({@code keepSchema()}) and times it from the first
 * record handed to the producer to the commit of the last batch (the {@code outbox.relayed}
 * counter reaching the backlog, polled every 5 ms); the first send to the last acknowledgement is
 * printed too. It checks that the topic then holds exactly the backlog and the outbox is empty.
 * Each run uses a fresh schema, outbox and topic; later runs in one JVM are warm.
 *
 * <pre>
 * mvn -q -pl outbox-kafka-relay -am test-compile exec:java -Dexec.classpathScope=test \
 *     -Dexec.mainClass=dev.outboxer.kafka.KafkaOutboxBenchmark [-Dbench.runs=2] \
 *     [-Dbench.messages=100000] [-Dbench.groups=1000] [-Dbench.batch-size=100] \
 *     [-Doutboxer.test.postgresql.url=jdbc:postgresql://127.0.0.1:5432/test]
 * </pre>
 */
public final class KafkaOutboxBenchmark {

  private static final int MESSAGES = Integer.getInteger("bench.messages", 100_000);
  private static final int GROUPS = Integer.getInteger("bench.groups", 1_000);
  private static final int RUNS = Integer.getInteger("bench.runs", 1);
  private static final int BATCH_SIZE = Integer.getInteger("bench.batch-size", 100);
  private static final int PARTITIONS = 4;
  private static final int PER_TRANSACTION = 1_000;
  private static final long GIVE_UP_NANOS = 600_000_000_000L;
  /** Makes each payload about 200 bytes of JSON, as in KafkaRelayThroughputBenchmark. */
  private static final String NOTE = "x".repeat(150);

  private KafkaOutboxBenchmark() {}

  /** The benchmark's message: about 200 bytes of JSON. */
  public record BenchEvent(String order, int sequence, String note) implements OutboxMessage {
    @Override
    public String groupKey() {
      return order;
    }
  }

  public static void main(String[] args) throws Exception {
    // kafka-server brings log4j-core, which jboss-logging would pick up (surefire sets this too).
    System.setProperty("org.jboss.logging.provider", "jdk");
    // simplelogger.properties names target/kafka-tests.log, relative to the working directory.
    String kafkaLog = System.getProperty("java.io.tmpdir") + "/kafka-outbox-benchmark.log";
    System.setProperty("org.slf4j.simpleLogger.logFile", kafkaLog);
    System.out.printf(Locale.ROOT, "Kafka outbox benchmark: PostgreSQL at %s -> embedded KRaft "
            + "broker, %,d messages over %,d groups, %d outbox partitions, batch-size %d, "
            + "%d-partition topic, %d cores (Kafka warnings: %s)%n", TestDatabase.POSTGRESQL.url(),
        MESSAGES, GROUPS, PARTITIONS, BATCH_SIZE, PARTITIONS,
        Runtime.getRuntime().availableProcessors(), kafkaLog);
    EmbeddedKafkaBroker broker = new EmbeddedKafkaBroker();
    broker.create();
    try {
      for (int run = 1; run <= RUNS; run++) {
        drain(broker, run);
      }
    } finally {
      broker.destroy();
    }
    System.exit(0);
  }

  private static void drain(EmbeddedKafkaBroker broker, int run) throws Exception {
    String outbox = "bench" + run;
    String topic = "bench-" + run;
    broker.createTopic(topic, PARTITIONS, Map.of());

    long publishNanos;
    try (OutboxTestContainer filler =
        node(OutboxTestContainer.builder(TestDatabase.POSTGRESQL), "none", outbox, topic, broker)) {
      Outbox publisher = filler.select(Outbox.class);
      long start = System.nanoTime();
      for (int transaction = 0; transaction < MESSAGES / PER_TRANSACTION; transaction++) {
        int base = transaction * PER_TRANSACTION;
        filler.inTransaction(() -> {
          for (int i = 0; i < PER_TRANSACTION; i++) {
            int sequence = base + i;
            publisher.publish(outbox,
                new BenchEvent("order-" + sequence % GROUPS, sequence, NOTE));
          }
        });
      }
      publishNanos = System.nanoTime() - start;
    }

    AckClock.reset();
    try (OutboxTestContainer drainer = node(
        OutboxTestContainer.builder(TestDatabase.POSTGRESQL).keepSchema(), "executor", outbox,
        topic, broker)) {
      OutboxMetricsProbe metrics = drainer.select(OutboxMetricsProbe.class);
      OutboxAdmin admin = drainer.select(OutboxAdmin.class);
      long giveUp = System.nanoTime() + GIVE_UP_NANOS;
      while (metrics.count(OutboxMetrics.RELAYED, outbox) < MESSAGES) {
        if (System.nanoTime() > giveUp) {
          throw new IllegalStateException("Not drained after 10 minutes: " + admin.counts(outbox));
        }
        Thread.sleep(5);
      }
      long committed = System.nanoTime();
      long pending = admin.counts(outbox).pending();
      long onTopic = recordsOn(broker, topic);
      double drainSeconds = (committed - AckClock.FIRST_SEND.get()) / 1e9;
      double ackSeconds = (AckClock.LAST_ACK.get() - AckClock.FIRST_SEND.get()) / 1e9;
      System.out.printf(Locale.ROOT, "BENCHMARK run %d: published %,d in %.1f s (%,.0f msg/s, one "
              + "thread, %d per transaction); drained in %.2f s = %,.0f msg/s (first send to last "
              + "commit); first send to last ack %.2f s = %,.0f msg/s; %,d records on the topic, "
              + "%d failed sends, %d left pending%n", run, MESSAGES, publishNanos / 1e9,
          MESSAGES / (publishNanos / 1e9), PER_TRANSACTION, drainSeconds, MESSAGES / drainSeconds,
          ackSeconds, MESSAGES / ackSeconds, onTopic, AckClock.FAILED.get(), pending);
      if (onTopic != MESSAGES || pending != 0) {
        System.out.println("BENCHMARK run " + run + ": the topic or the outbox is not as expected");
      }
    }
  }

  private static OutboxTestContainer node(OutboxTestContainer.Builder builder, String worker,
      String outbox, String topic, EmbeddedKafkaBroker broker) {
    String prefix = "outbox." + outbox + ".";
    return builder
        .config("outbox.worker", worker)
        .config(prefix + "relay", "kafka")
        .config(prefix + "partitions", String.valueOf(PARTITIONS))
        .config(prefix + "batch-size", String.valueOf(BATCH_SIZE))
        .config(prefix + "kafka.topic", topic)
        .config(prefix + "kafka.bootstrap.servers", broker.bootstrapServers())
        .config(prefix + "kafka.interceptor.classes", AckClock.class.getName())
        .beans(OutboxMetricsProbe.class)
        .start();
  }

  /** The sum of the topic's end offsets: every record written, duplicates included. */
  private static long recordsOn(EmbeddedKafkaBroker broker, String topic) {
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(TopicReader.consumerConfig(broker.bootstrapServers()))) {
      List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
          .map(info -> new TopicPartition(topic, info.partition()))
          .toList();
      return consumer.endOffsets(partitions).values().stream().mapToLong(Long::longValue).sum();
    }
  }

  /**
   * Times the relay's producer from the outside: the first record handed to it, the last
   * acknowledgement, and the failures. Kafka creates the instance, hence the static counters.
   */
  public static final class AckClock implements ProducerInterceptor<String, byte[]> {
    private static final long UNSET = Long.MIN_VALUE;
    static final AtomicLong FIRST_SEND = new AtomicLong(UNSET);
    static final AtomicLong LAST_ACK = new AtomicLong(UNSET);
    static final AtomicLong FAILED = new AtomicLong();

    static void reset() {
      FIRST_SEND.set(UNSET);
      LAST_ACK.set(UNSET);
      FAILED.set(0);
    }

    @Override
    public ProducerRecord<String, byte[]> onSend(ProducerRecord<String, byte[]> record) {
      if (FIRST_SEND.get() == UNSET) {
        FIRST_SEND.compareAndSet(UNSET, System.nanoTime());
      }
      return record;
    }

    @Override
    public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
      if (exception == null) {
        LAST_ACK.accumulateAndGet(System.nanoTime(), Math::max);
      } else {
        FAILED.incrementAndGet();
      }
    }

    @Override
    public void close() {}

    @Override
    public void configure(Map<String, ?> configs) {}
  }
}
