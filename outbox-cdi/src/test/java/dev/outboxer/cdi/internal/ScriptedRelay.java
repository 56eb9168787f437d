package dev.outboxer.cdi.internal;

import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayBatch;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * A relay whose behaviour each test scripts ({@code outbox.<name>.relay=scripted}). The script and
 * what the relay saw are static, shared by every container in the JVM: a multi-node test scripts
 * its nodes once, before the second node's workers start, and sees the batches of all nodes in
 * one list. Tests reset it before each test. Every batch and every delivery is recorded with the
 * node (container) that made it.
 */
@ApplicationScoped
@Named("scripted")
public class ScriptedRelay implements Relay {

  /** What a test makes the relay do with a batch. */
  @FunctionalInterface
  public interface Script {
    void relay(RelayBatch batch, String node) throws Exception;
  }

  /** One batch as a node's relay saw it, with real-time start and end (System.nanoTime). */
  public record Seen(String node, String outbox, int partition, long fencingToken, List<OutboxRecord> records,
      long startNanos, long endNanos) {}

  /** One record sent (confirmed) by a node. */
  public record Delivery(String node, OutboxRecord record, long fencingToken, long nanos) {}

  private static final AtomicInteger NODES = new AtomicInteger();
  private static final List<Seen> SEEN = new CopyOnWriteArrayList<>();
  private static final List<Delivery> DELIVERIES = new CopyOnWriteArrayList<>();
  private static volatile Script script = ScriptedRelay::sendAll;
  private static volatile boolean usesWorkerTransaction = true;

  private String node;

  @PostConstruct
  void name() {
    node = "node-" + NODES.incrementAndGet();
  }

  @Override
  public void relay(RelayBatch batch) throws Exception {
    long start = System.nanoTime();
    try {
      script.relay(batch, node);
    } finally {
      SEEN.add(new Seen(node, batch.outbox(), batch.partition(), batch.fencingToken(), batch.records(), start,
          System.nanoTime()));
    }
  }

  /**
   * What {@link #useWorkerTransaction} last set (default {@code true}); asked when a container's
   * workers start, so a test sets it before it starts the container.
   */
  @Override
  public boolean usesWorkerTransaction() {
    return usesWorkerTransaction;
  }

  /**
   * Whether the relay says it uses the worker's transaction: {@code false} runs the workers of the
   * containers started afterwards on plain database transactions. Not reset by {@link #reset()}.
   */
  public static void useWorkerTransaction(boolean uses) {
    usesWorkerTransaction = uses;
  }

  /** This container's node name, as recorded in {@link Seen} and {@link Delivery}. */
  public String node() {
    return node;
  }

  /** The default script: sends every record that is not held back, in order. */
  public static void sendAll(RelayBatch batch, String node) {
    for (OutboxRecord record : batch.records()) {
      if (!batch.heldBack(record)) {
        send(batch, record, node);
      }
    }
  }

  /**
   * A script that fails the records whose ids are in {@code failures} (read at each batch, so a
   * test can add to it before its publish commits) with the failure given, and sends the others
   * that are not held back, in order.
   */
  public static Script failing(Map<Long, ? extends RuntimeException> failures) {
    return (batch, node) -> {
      for (OutboxRecord record : batch.records()) {
        if (batch.heldBack(record)) {
          continue;
        }
        RuntimeException failure = failures.get(record.id());
        if (failure != null) {
          batch.fail(record, failure);
        } else {
          send(batch, record, node);
        }
      }
    };
  }

  /** Records the delivery, then confirms it: what a real relay does after the destination accepted the record. */
  public static void send(RelayBatch batch, OutboxRecord record, String node) {
    DELIVERIES.add(new Delivery(node, record, batch.fencingToken(), System.nanoTime()));
    batch.confirm(record);
  }

  public static void script(Script newScript) {
    script = newScript;
  }

  public static void reset() {
    script = ScriptedRelay::sendAll;
    SEEN.clear();
    DELIVERIES.clear();
  }

  public static List<Seen> seen() {
    return List.copyOf(SEEN);
  }

  public static List<Delivery> deliveries() {
    return List.copyOf(DELIVERIES);
  }

  /** How many times each id was sent. */
  public static Map<Long, Long> deliveryCounts() {
    return DELIVERIES.stream().collect(Collectors.groupingBy(d -> d.record().id(), Collectors.counting()));
  }

  /** Ids sent per group key, in the order they were sent (duplicates included). */
  public static Map<String, List<Long>> deliveredIdsByGroup() {
    return DELIVERIES.stream().sorted(java.util.Comparator.comparingLong(Delivery::nanos)).collect(Collectors.groupingBy(
        d -> String.valueOf(d.record().groupKey()), java.util.LinkedHashMap::new,
        Collectors.mapping(d -> d.record().id(), Collectors.toList())));
  }

  /** How many times a record was handed to a relay (in any batch, on any node). */
  public static long timesHanded(long id) {
    return SEEN.stream().flatMap(seen -> seen.records().stream()).filter(record -> record.id() == id).count();
  }
}
