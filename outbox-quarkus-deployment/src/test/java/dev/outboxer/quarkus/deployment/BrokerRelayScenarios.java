package dev.outboxer.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.testing.TestDatabase;
import dev.outboxer.testing.TestOrder;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/**
 * A relay module in a Quarkus application (JVM mode) on PostgreSQL, selected only by
 * configuration ({@code outbox.orders.relay=<relay>} and its {@code outbox.orders.<relay>.*}
 * keys): entries published in the caller's transaction reach the broker, a rolled-back one does
 * not, and a consumer of the broker gets each customer's entries in the order they were published
 * while several customers publish at once, through three partition workers. One subclass per relay
 * consumes from its broker.
 */
abstract class BrokerRelayScenarios {

  /** The outbox the relay under test serves; its partition count (3) comes from the environment (OUTBOX_ORDERS_PARTITIONS, set in the pom). */
  static final String OUTBOX = "orders";
  static final int CUSTOMERS = 4;
  static final int ENTRIES_EACH = 10;
  static final Duration RECEIVE_WITHIN = Duration.ofSeconds(60);

  private static final Pattern ENTRY = Pattern.compile("\"customer\":\"([^\"]+)\".*\"sequence\":(\\d+)");

  /**
   * The application of a subclass: {@code relay} for the outbox {@value #OUTBOX}; {@code
   * beforeStart} prepares the broker and adds the keys only known then; {@code more} are classes of
   * the subclass's own (beans that give the relay what it needs).
   */
  static QuarkusUnitTest application(String relay, Runnable beforeStart, Class<? extends BrokerRelayScenarios> test,
      Class<?>... more) {
    List<Class<?>> classes = new ArrayList<>(List.of(BrokerRelayScenarios.class, test, AuditService.class,
        AuditEntry.class, TestOrder.class));
    classes.addAll(List.of(more));
    return QuarkusTestApplication.on(TestDatabase.POSTGRESQL, beforeStart, classes.toArray(Class<?>[]::new))
        .overrideConfigKey("outbox." + OUTBOX + ".relay", relay)
        .overrideConfigKey("outbox." + OUTBOX + ".poll-interval", "100ms")
        .overrideConfigKey("outbox." + OUTBOX + ".max-poll-interval", "500ms");
  }

  /** A key of the application's configuration (where a subclass finds its broker, set before the start). */
  static String config(String key) {
    return ConfigProvider.getConfig().getValue(key, String.class);
  }

  /** The payloads consumed from the broker, at least {@code count} or what arrived within {@link #RECEIVE_WITHIN}, each group's in the order consumed. */
  abstract List<String> consume(int count) throws Exception;

  @Inject AuditService audit;

  @Test
  void relaysWhatCommittedToTheBrokerInOrderPerCustomerWhileCustomersPublishAtOnce() throws Exception {
    assertThatThrownBy(() -> audit.recordThenFail(OUTBOX, 9000, "customer-0", 0))
        .hasMessageContaining("simulated failure");

    CountDownLatch start = new CountDownLatch(1);
    ExecutorService publishers = Executors.newFixedThreadPool(CUSTOMERS);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int c = 0; c < CUSTOMERS; c++) {
        String customer = "customer-" + c;
        long base = 10_000L * (c + 1);
        done.add(publishers.submit((Callable<Void>) () -> {
          start.await();
          for (int sequence = 1; sequence <= ENTRIES_EACH; sequence++) {
            audit.record(OUTBOX, base + sequence, customer, sequence);
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> each : done) {
        each.get();
      }
    } finally {
      publishers.shutdownNow();
    }

    List<String> consumed = consume(CUSTOMERS * ENTRIES_EACH);
    Map<String, List<Integer>> sequences = new LinkedHashMap<>();
    for (String payload : consumed) {
      Matcher entry = ENTRY.matcher(payload);
      assertThat(entry.find()).as("an AuditEntry: %s", payload).isTrue();
      sequences.computeIfAbsent(entry.group(1), k -> new ArrayList<>()).add(Integer.valueOf(entry.group(2)));
    }
    List<Integer> all = IntStream.rangeClosed(1, ENTRIES_EACH).boxed().toList();
    // The rolled-back entry (customer-0, sequence 0) would come first in its group had it been written.
    assertThat(sequences).as("each customer's entries as consumed").isEqualTo(IntStream.range(0, CUSTOMERS).boxed()
        .collect(Collectors.toMap(c -> "customer-" + c, c -> all, (a, b) -> a, java.util.TreeMap::new)));
  }
}
