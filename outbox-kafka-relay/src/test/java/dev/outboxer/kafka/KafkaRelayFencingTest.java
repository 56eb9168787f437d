package dev.outboxer.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.Ordering;
import dev.outboxer.OutboxException;
import dev.outboxer.kafka.TopicReader.Received;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.Relay;
import dev.outboxer.testing.TestRelayBatch;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Two nodes' relays of the same outbox partition against a real broker, driven as two partition
 * workers whose claims follow each other: node A's batch is in flight when its claim lapses (its
 * JVM stalled past the lease), node B claims the partition with a higher fencing token and relays
 * the next batch (the same pending rows and more), then A resumes. A {@code read_committed}
 * consumer must never see A's records after B's: with {@code fencing=transactional} the broker
 * refuses A (B's producer fenced it); with {@code fencing=none} the control shows what is lost.
 * Each test has its own single-partition topic, so the topic's order is the consumer's order.
 */
class KafkaRelayFencingTest {

  @RegisterExtension static final EmbeddedKafkaBroker KAFKA = new EmbeddedKafkaBroker();

  private static final Duration RELAY_TIMEOUT = Duration.ofSeconds(20);
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final ExecutorService NODE_A_WORKER = Executors.newSingleThreadExecutor();

  private final OutboxRecords records = new OutboxRecords("orders");
  private final List<Relay> relays = new ArrayList<>();

  @AfterEach
  void closeRelays() {
    StallingInterceptor.reset();
    relays.forEach(Relay::close);
  }

  @AfterAll
  static void stopWorker() {
    NODE_A_WORKER.shutdownNow();
  }

  @Test
  void a_stale_node_resuming_inside_a_send_is_fenced_and_none_of_its_records_become_visible()
      throws Exception {
    String topic = topic("stale-send");
    Relay nodeA = relay(topic, "transactional", true);
    Relay nodeB = relay(topic, "transactional", false);
    OutboxRecord a1 = records.next(0, "a");
    OutboxRecord a2 = records.next(0, "a");
    OutboxRecord b1 = records.next(0, "b");
    TestRelayBatch batchA = batch(5, a1, a2, b1);

    StallingInterceptor.Gate stalled = StallingInterceptor.stallNextSend();
    Future<?> resumed = NODE_A_WORKER.submit(() -> {
      nodeA.relay(batchA);
      return null;
    });
    assertThat(stalled.awaitReached(WAIT)).as("node A stalled inside its first send").isTrue();
    // A's lease ends while it is stalled; B claims the partition and relays the next batch: the
    // rows A has not committed and a newer one.
    batchA.loseClaim();
    OutboxRecord a3 = records.next(0, "a");
    TestRelayBatch batchB = batch(6, a1, a2, b1, a3);
    nodeB.relay(batchB);
    batchB.end();
    stalled.release();
    resumed.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    batchA.end();

    assertThat(batchB.confirmed()).containsExactly(a1, a2, b1, a3);
    assertThat(batchA.confirmed()).as("confirmed by the stale node").isEmpty();
    assertThat(batchA.violations()).isEmpty();
    List<Received> topicOrder = TopicReader.readAll(KAFKA.bootstrapServers(), topic, 4, WAIT);
    assertThat(topicOrder).extracting(Received::fencingToken).containsOnly(6L);
    assertThat(topicOrder).extracting(Received::outboxId).containsExactly(ids(a1, a2, b1, a3));
  }

  @Test
  void without_transactions_the_same_stale_send_lands_after_the_next_owners_records()
      throws Exception {
    String topic = topic("stale-send-none");
    Relay nodeA = relay(topic, "none", true);
    Relay nodeB = relay(topic, "none", false);
    OutboxRecord a1 = records.next(0, "a");
    OutboxRecord a2 = records.next(0, "a");
    TestRelayBatch batchA = batch(5, a1, a2);

    StallingInterceptor.Gate stalled = StallingInterceptor.stallNextSend();
    Future<?> resumed = NODE_A_WORKER.submit(() -> {
      nodeA.relay(batchA);
      return null;
    });
    assertThat(stalled.awaitReached(WAIT)).as("node A stalled inside its first send").isTrue();
    batchA.loseClaim();
    TestRelayBatch batchB = batch(6, a1, a2);
    nodeB.relay(batchB);
    batchB.end();
    stalled.release();
    resumed.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    batchA.end();

    // The record A had already handed to its producer reaches the topic behind B's: what
    // fencing=none gives up. The relay still confirms nothing after the lapse and sends nothing
    // more (a2 is not sent by A).
    assertThat(batchA.confirmed()).isEmpty();
    assertThat(batchA.violations()).isEmpty();
    List<Received> topicOrder = TopicReader.readAll(KAFKA.bootstrapServers(), topic, 3, WAIT);
    assertThat(topicOrder).extracting(Received::fencingToken).containsExactly(6L, 6L, 5L);
    assertThat(topicOrder).extracting(Received::outboxId).containsExactly(ids(a1, a2, a1));
  }

  @Test
  void a_stale_node_stalled_between_its_last_claim_check_and_its_commit_cannot_commit()
      throws Exception {
    String topic = topic("stale-commit");
    Relay nodeA = relay(topic, "transactional", true);
    Relay nodeB = relay(topic, "transactional", false);
    OutboxRecord a1 = records.next(0, "a");
    OutboxRecord b1 = records.next(0, "b");
    StallingInterceptor.Gate stalled = new StallingInterceptor.Gate();
    ClaimCheckedBatch batchA = new ClaimCheckedBatch(batch(5, a1, b1))
        .stallAfterCheckAfterAcks(StallingInterceptor::acks, 2, stalled);

    Future<?> resumed = NODE_A_WORKER.submit(() -> {
      nodeA.relay(batchA);
      return null;
    });
    assertThat(stalled.awaitReached(WAIT)).as("node A stalled after its records were acknowledged"
        + " and its claim check passed").isTrue();
    batchA.delegate().loseClaim();
    OutboxRecord b2 = records.next(0, "b");
    TestRelayBatch batchB = batch(6, a1, b1, b2);
    nodeB.relay(batchB);
    batchB.end();
    stalled.release();

    // A goes on to commit, and the broker refuses it: B's producer fenced A's.
    assertThatThrownBy(() -> resumed.get(WAIT.toSeconds(), TimeUnit.SECONDS))
        .hasCauseInstanceOf(OutboxException.class)
        .cause().hasMessageContaining("transactional.id 'outboxer-orders-0' was fenced by a newer "
            + "producer")
        .hasMessageContaining("fencing token 5")
        .hasMessageContaining("claim of the partition lapsed, so it sends nothing more");
    batchA.delegate().end();
    assertThat(batchB.confirmed()).containsExactly(a1, b1, b2);
    assertThat(batchA.delegate().confirmed()).isEmpty();
    List<Received> committed = TopicReader.readAll(KAFKA.bootstrapServers(), topic, 3, WAIT);
    assertThat(committed).extracting(Received::fencingToken).containsOnly(6L);
    assertThat(committed).extracting(Received::outboxId).containsExactly(ids(a1, b1, b2));
    // A's records did reach the log: only the aborted transaction hides them, which is why
    // consumers must read with isolation.level=read_committed.
    List<Received> everything =
        TopicReader.readAllUncommitted(KAFKA.bootstrapServers(), topic, 5, WAIT);
    assertThat(everything).extracting(Received::fencingToken).containsExactly(5L, 5L, 6L, 6L, 6L);
  }

  @Test
  void a_fenced_producer_is_replaced_while_the_claim_holds_and_the_next_batches_work()
      throws Exception {
    String topic = topic("replaced");
    Relay nodeA = relay(topic, "transactional", false);
    Relay nodeB = relay(topic, "transactional", false);
    OutboxRecord first = records.next(0, "a");
    OutboxRecord second = records.next(0, "a");
    OutboxRecord third = records.next(0, "a");
    OutboxRecord fourth = records.next(0, "a");

    TestRelayBatch one = relayed(nodeA, batch(1, first));
    // B's producer of the same partition fences A's; A claims the partition back afterwards.
    TestRelayBatch two = relayed(nodeB, batch(2, second));
    TestRelayBatch three = relayed(nodeA, batch(3, third));
    TestRelayBatch four = relayed(nodeA, batch(4, fourth));

    assertThat(List.of(one, two, three, four)).allSatisfy(batch -> {
      assertThat(batch.unconfirmed()).as("unconfirmed in %s", batch).isEmpty();
      assertThat(batch.violations()).isEmpty();
    });
    List<Received> topicOrder = TopicReader.readAll(KAFKA.bootstrapServers(), topic, 4, WAIT);
    assertThat(topicOrder).extracting(Received::outboxId)
        .containsExactly(ids(first, second, third, fourth));
    assertThat(topicOrder).extracting(Received::fencingToken).containsExactly(1L, 2L, 3L, 4L);
  }

  @Test
  void a_fenced_producer_is_not_replaced_once_the_claim_lapsed() throws Exception {
    String topic = topic("not-replaced");
    Relay nodeA = relay(topic, "transactional", false);
    Relay nodeB = relay(topic, "transactional", false);
    OutboxRecord first = records.next(0, "a");
    OutboxRecord second = records.next(0, "a");
    relayed(nodeA, batch(1, first));
    relayed(nodeB, batch(2, first, second));

    // A's old producer is fenced; its claim lapsed, so it must not fence B's back.
    TestRelayBatch stale = batch(1, first, second);
    stale.loseClaim();
    nodeA.relay(stale);
    stale.end();
    OutboxRecord third = records.next(0, "a");
    TestRelayBatch next = relayed(nodeB, batch(3, third));

    assertThat(stale.confirmed()).isEmpty();
    assertThat(next.confirmed()).containsExactly(third);
    assertThat(TopicReader.readAll(KAFKA.bootstrapServers(), topic, 4, WAIT))
        .extracting(Received::fencingToken).containsExactly(1L, 2L, 2L, 3L);
  }

  @Test
  void a_claim_that_lapses_before_the_commit_aborts_the_transaction_and_confirms_nothing()
      throws Exception {
    String topic = topic("lapse-transactional");
    Relay node = relay(topic, "transactional", true);
    OutboxRecord a1 = records.next(0, "a");
    OutboxRecord b1 = records.next(0, "b");
    OutboxRecord a2 = records.next(0, "a");
    ClaimCheckedBatch batch = new ClaimCheckedBatch(batch(7, a1, b1, a2))
        .loseClaimAtCheckAfterAcks(StallingInterceptor::acks, 3);

    node.relay(batch);
    batch.delegate().end();

    assertThat(batch.delegate().confirmed()).isEmpty();
    assertThat(batch.delegate().violations()).isEmpty();
    assertThat(TopicReader.readAllUncommitted(KAFKA.bootstrapServers(), topic, 3, WAIT))
        .as("sent, then aborted").hasSize(3);
    assertThat(TopicReader.readAll(KAFKA.bootstrapServers(), topic, 0, Duration.ofSeconds(2)))
        .as("what a read_committed consumer sees").isEmpty();
  }

  @Test
  void without_transactions_a_lapsed_claim_stops_the_waves_and_confirms_nothing_after_it()
      throws Exception {
    String topic = topic("lapse-none");
    Relay node = relay(topic, "none", false);
    OutboxRecord a1 = records.next(0, "a");
    OutboxRecord b1 = records.next(0, "b");
    OutboxRecord a2 = records.next(0, "a");
    ClaimCheckedBatch batch = new ClaimCheckedBatch(batch(7, a1, b1, a2))
        .loseClaimAfterFirstConfirm();

    node.relay(batch);
    batch.delegate().end();

    assertThat(batch.delegate().confirmed()).as("only the confirmation before the lapse")
        .hasSize(1);
    assertThat(batch.delegate().violations()).isEmpty();
    assertThat(TopicReader.readAll(KAFKA.bootstrapServers(), topic, 2, Duration.ofSeconds(5)))
        .as("the first wave, not the second").extracting(Received::outboxId)
        .containsExactlyInAnyOrder(a1.id(), b1.id());
  }

  private static String topic(String name) throws Exception {
    String topic = "fencing-" + name;
    KAFKA.createTopic(topic, 1, Map.of());
    return topic;
  }

  /** A relay of outbox 'orders' as one node creates it; every node uses the same settings. */
  private Relay relay(String topic, String fencing, boolean stallable) {
    Map<String, String> extra = new HashMap<>();
    extra.put("fencing", fencing);
    if (stallable) {
      extra.put("interceptor.classes", StallingInterceptor.class.getName());
    }
    Relay relay = KafkaRelayTest.relay(KAFKA, topic, RELAY_TIMEOUT, extra);
    relays.add(relay);
    return relay;
  }

  private static TestRelayBatch batch(long fencingToken, OutboxRecord... records) {
    return new TestRelayBatch(Ordering.GROUP, List.of(records), RELAY_TIMEOUT)
        .fencingToken(fencingToken);
  }

  private static TestRelayBatch relayed(Relay relay, TestRelayBatch batch) throws Exception {
    relay.relay(batch);
    batch.end();
    return batch;
  }

  private static Long[] ids(OutboxRecord... records) {
    Long[] ids = new Long[records.length];
    for (int i = 0; i < records.length; i++) {
      ids[i] = records[i].id();
    }
    return ids;
  }
}
