package dev.outboxer.cdi.internal.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.outboxer.OutboxAdmin;
import dev.outboxer.OutboxException;
import dev.outboxer.cdi.internal.Rows;
import dev.outboxer.cdi.internal.ScriptedRelay;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Reviving the dead messages of many groups with {@code serialize-writes}, on a real database. A
 * revive takes the write lock of every group it revives until its transaction ends; one
 * transaction takes at most {@value AdminStatements#MAX_GROUP_LOCKS} (PostgreSQL's lock table is
 * shared by the whole server and ran out with 100,000 advisory locks).
 *
 * <ul>
 *   <li>outside a transaction, {@code retryDead} revives any number of groups, that many groups a
 *       transaction;
 *   <li>in the caller's transaction, a revive of more groups is refused, naming the counts and the
 *       way out, and revives nothing;
 *   <li>exactly that many groups still go in the caller's transaction.
 * </ul>
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AdminBulkDeadContractTest {

  static final String OUTBOX = "bulk";
  /** The group locks one transaction takes at most (AdminStatements.MAX_GROUP_LOCKS). */
  static final int MAX_GROUP_LOCKS = 1_000;
  private static final Logger LOG = Logger.getLogger(AdminBulkDeadContractTest.class.getName());

  private OutboxTestContainer container;
  private OutboxAdmin admin;

  abstract TestDatabase database();

  /**
   * Inserts {@code count} dead messages of the outbox, ids 1..count, message n of group {@code "g"
   * + (n % groups)}, and moves the message sequence past them.
   */
  abstract void insertDead(Connection connection, int count, int groups) throws SQLException;

  @BeforeAll
  void start() {
    ScriptedRelay.reset();
    Map<String, String> config = new LinkedHashMap<>();
    config.put("outbox." + OUTBOX + ".relay", "scripted");
    config.put("outbox." + OUTBOX + ".serialize-writes", "true");
    config.put("outbox." + OUTBOX + ".partitions", "1");
    // The revived messages stay pending: these tests are about the admin call, not the relaying.
    config.put("outbox.worker", "none");
    container = OutboxTestContainer.builder(database()).config(config).beans(ScriptedRelay.class).start();
    admin = container.select(OutboxAdmin.class);
  }

  @AfterAll
  void stop() {
    ScriptedRelay.reset();
    if (container != null) {
      container.close();
    }
  }

  @BeforeEach
  @AfterEach
  void clean() {
    Rows.clear(database());
  }

  @Test
  void a_revive_of_100000_dead_messages_of_as_many_groups_outside_a_transaction_revives_them_all() throws Exception {
    // A group per aggregate (an order, a customer) is common: here every dead message has a group of its own.
    int dead = 100_000;
    deadMessages(dead, dead);
    long started = System.nanoTime();
    int revived = admin.retryDead(OUTBOX);
    LOG.info(getClass().getSimpleName() + ": retryDead of " + dead + " dead messages of as many groups took "
        + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) + "ms");
    assertThat(revived).as("messages revived").isEqualTo(dead);
    assertThat(Rows.count(database(), "outbox_message", "status = 'PENDING' AND id > ?", (long) dead))
        .as("pending messages with new ids").isEqualTo(dead);
    assertThat(admin.counts(OUTBOX).dead()).as("dead messages left").isZero();
  }

  @Test
  void a_revive_of_more_groups_than_one_transaction_locks_in_the_callers_transaction_is_refused_and_revives_nothing()
      throws Exception {
    int groups = MAX_GROUP_LOCKS + 1;
    deadMessages(groups, groups);
    Throwable refused = catchThrowable(() -> container.inTransaction(() -> admin.retryDead(OUTBOX)));
    assertThat(refused).as("retryDead of " + groups + " groups in the caller's transaction")
        .isInstanceOf(OutboxException.class)
        .hasMessageContaining("the revive concerns " + groups + " dead message(s) of " + groups + " groups")
        .hasMessageContaining("at most " + MAX_GROUP_LOCKS + " in one transaction")
        .hasMessageContaining("Nothing was revived")
        .hasMessageContaining("outside a transaction");
    assertThat(admin.counts(OUTBOX).dead()).as("dead messages left").isEqualTo(groups);
  }

  @Test
  void a_revive_of_as_many_groups_as_one_transaction_locks_goes_in_the_callers_transaction() throws Exception {
    int groups = MAX_GROUP_LOCKS;
    deadMessages(2 * groups, groups);
    int revived = container.inTransaction(() -> admin.retryDead(OUTBOX));
    assertThat(revived).as("messages revived").isEqualTo(2 * groups);
    assertThat(admin.counts(OUTBOX).dead()).as("dead messages left").isZero();
  }

  /**
   * A revived message is a new message: the workers read it with the fresh ones, in id order, and
   * not through the few messages that wait for a retry, which every batch reads in full (a revive of
   * 100,000 that all waited for a retry took a worker 418 s to drain, against about 2 s for fresh
   * messages).
   */
  @Test
  void revived_messages_are_fresh_pending_messages_and_none_of_them_waits_for_a_retry() throws Exception {
    deadMessages(1_000, 10);
    assertThat(admin.retryDead(OUTBOX)).as("messages revived").isEqualTo(1_000);
    assertThat(admin.partitions(OUTBOX)).singleElement().satisfies(partition -> {
      assertThat(partition.pending()).as("pending").isEqualTo(1_000);
      assertThat(partition.retrying()).as("waiting for a retry").isZero();
    });
  }

  private void deadMessages(int count, int groups) throws SQLException {
    try (Connection connection = database().connect()) {
      insertDead(connection, count, groups);
    }
  }
}
