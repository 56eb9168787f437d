package dev.outboxer.benchmark;

import com.arjuna.ats.jta.common.jtaPropertyManager;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayBatch;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The no-op relay of the benchmark ({@code outbox.<name>.relay=bench}): it sends nothing and
 * confirms every record, except the records of a failing group, which it fails. What it saw goes
 * to the {@link Plan} registered for the batch's outbox.
 *
 * <p>A drain counts a record when the worker's transaction that deletes it commits, observed with
 * an interposed JTA synchronization; without an active JTA transaction it counts at the end of
 * {@link #relay}. The plan is looked up per batch by outbox name, so it is in place before a new
 * node's workers start; only one node with workers may use an outbox at a time.
 */
@ApplicationScoped
@Named("bench")
class BenchRelay implements Relay {

  /** What a run wants from the relay of one outbox; any part may be null. */
  record Plan(DrainProbe probe, String failingGroup, Arrivals receipts) {}

  private static final Map<String, Plan> PLANS = new ConcurrentHashMap<>();

  static void plan(String outbox, Plan plan) {
    PLANS.put(outbox, plan);
  }

  static void clear(String outbox) {
    PLANS.remove(outbox);
  }

  @Override
  public void relay(RelayBatch batch) {
    Plan plan = PLANS.get(batch.outbox());
    DrainProbe probe = plan == null ? null : plan.probe();
    String failing = plan == null ? null : plan.failingGroup();
    Arrivals receipts = plan == null ? null : plan.receipts();
    if (probe != null) {
      probe.handed();
    }
    List<OutboxRecord> confirmed = new ArrayList<>(batch.records().size());
    for (OutboxRecord record : batch.records()) {
      if (batch.heldBack(record)) {
        continue;
      }
      if (failing != null && failing.equals(record.groupKey())) {
        batch.fail(record, new IllegalStateException("the benchmark fails every message of " + failing));
        continue;
      }
      if (receipts != null) {
        receipts.received(record.id());
      }
      batch.confirm(record);
      confirmed.add(record);
    }
    if (probe != null && !confirmed.isEmpty()) {
      afterCommit(probe, confirmed);
    }
  }

  private static void afterCommit(DrainProbe probe, List<OutboxRecord> confirmed) {
    long[] ids = new long[confirmed.size()];
    String[] groups = new String[confirmed.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = confirmed.get(i).id();
      groups[i] = confirmed.get(i).groupKey();
    }
    TransactionSynchronizationRegistry registry = jtaPropertyManager.getJTAEnvironmentBean()
        .getTransactionSynchronizationRegistry();
    if (registry.getTransactionKey() == null) {
      probe.committed(ids, groups);
      return;
    }
    registry.registerInterposedSynchronization(new Synchronization() {
      @Override
      public void beforeCompletion() {
        // nothing to prepare
      }

      @Override
      public void afterCompletion(int status) {
        if (status == Status.STATUS_COMMITTED) {
          probe.committed(ids, groups);
        } else {
          // Confirmed but not deleted: a deadlock, a timeout or a failed commit; the messages come again.
          probe.rolledBack(ids.length);
        }
      }
    });
  }
}
