package dev.outboxer.cdi.internal.work;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.Outbox;
import dev.outboxer.cdi.internal.Keyed;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A message whose transaction commits long after later messages were published and relayed is
 * still relayed, and before the later messages of its own group: the worker's read cursor (which
 * skips the rows it already relayed) never moves past an id whose transaction may still commit.
 */
class LateCommitTest {

  @Test
  void a_late_commit_below_the_cursor_is_relayed_and_keeps_its_group_in_order() throws Exception {
    // Through the data source (publishers and workers): the EntityManager path is covered by the other worker tests.
    try (OutboxTestContainer container = OnePartitionOrders.container(20)
        .config("outbox.orders.serialize-writes", "true")
        .start()) {
      Outbox outbox = container.select(Outbox.class);
      RecordingRelay relay = container.select(RecordingRelay.class);

      // A transaction draws an id for group "late" and stays open while a hundred later messages go out.
      CountDownLatch published = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      CompletableFuture<Long> late = CompletableFuture.supplyAsync(() -> {
        try {
          return container.inTransaction(() -> {
            long id = outbox.publish("orders", new Keyed("late", 1));
            published.countDown();
            release.await(30, TimeUnit.SECONDS);
            return id;
          });
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      assertThat(published.await(10, TimeUnit.SECONDS)).isTrue();

      List<Long> others = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        int n = i;
        others.add(container.inTransaction(() -> outbox.publish("orders", new Keyed("other-" + (n % 7), n))));
      }
      await().atMost(Duration.ofSeconds(30)).until(() -> relay.confirmed().size() >= 100);

      release.countDown();
      long lateId = late.get(10, TimeUnit.SECONDS);
      assertThat(lateId).isLessThan(others.get(0));
      long next = container.inTransaction(() -> outbox.publish("orders", new Keyed("late", 2)));

      await().atMost(Duration.ofSeconds(30)).until(() -> relay.confirmed().size() >= 102);
      List<Long> lateGroup = relay.confirmed().stream().filter(record -> "late".equals(record.groupKey()))
          .map(OutboxRecord::id).toList();
      assertThat(lateGroup).as("the late message is relayed, and before the next one of its group")
          .containsExactly(lateId, next);
      assertThat(relay.confirmed()).extracting(OutboxRecord::id).doesNotHaveDuplicates();
      assertThat(container.tables().countMessages()).isZero();
    }
  }
}
