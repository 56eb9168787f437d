package dev.outboxer.inbox;

import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayBatch;
import dev.outboxer.spi.RelayContext;
import dev.outboxer.spi.RelayInterceptor;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Makes the core deliver batches twice, as when the worker's commit fails after the relay sent: while
 * armed, each batch goes through the real relay (and so reaches the broker), then the worker's JTA
 * transaction is marked rollback-only, so nothing of the batch is deleted and the next round sends
 * it again.
 */
@ApplicationScoped
public class RedeliveringInterceptor implements RelayInterceptor {

  private final AtomicInteger armed = new AtomicInteger();
  private final AtomicInteger rolledBack = new AtomicInteger();
  private final AtomicInteger recordsSentAgain = new AtomicInteger();

  /** The next {@code batches} batches (of any outbox) are rolled back after they were sent. */
  void arm(int batches) {
    armed.set(batches);
  }

  /** How many batches were rolled back after they were sent. */
  int rolledBack() {
    return rolledBack.get();
  }

  /** How many records the rolled-back batches held: each will reach the consumer once more. */
  int recordsSentAgain() {
    return recordsSentAgain.get();
  }

  @Override
  public Relay intercept(Relay relay, RelayContext context) {
    return new Relay() {
      @Override
      public void relay(RelayBatch batch) throws Exception {
        relay.relay(batch);
        if (armed.getAndUpdate(left -> Math.max(0, left - 1)) > 0) {
          try {
            com.arjuna.ats.jta.TransactionManager.transactionManager().setRollbackOnly();
          } catch (Exception e) {
            throw new IllegalStateException("The worker's transaction could not be marked rollback-only", e);
          }
          rolledBack.incrementAndGet();
          recordsSentAgain.addAndGet(batch.records().size());
        }
      }

      @Override
      public void close() {
        relay.close();
      }
    };
  }
}
