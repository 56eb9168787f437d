package dev.outboxer.testing;

import dev.outboxer.Ordering;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.RecordOutcome;
import dev.outboxer.spi.RelayBatch;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A batch that passes every call on to another: a test overrides the calls it wants to watch or
 * change (stop the broker at the third confirmation, let the claim lapse, hide the outcomes) and
 * inherits the rest, instead of writing the whole interface out again.
 *
 * <p>It guarantees nothing beyond the delegate's behaviour: what an override does to the contract
 * (a record confirmed twice, a claim that comes back) is the test's business.
 */
public abstract class ForwardingRelayBatch implements RelayBatch {

  private final RelayBatch delegate;

  /** @param delegate the batch every call goes to */
  protected ForwardingRelayBatch(RelayBatch delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** @return the batch every call goes to */
  protected RelayBatch delegate() {
    return delegate;
  }

  @Override public String outbox() { return delegate.outbox(); }
  @Override public int partition() { return delegate.partition(); }
  @Override public Ordering ordering() { return delegate.ordering(); }
  @Override public List<OutboxRecord> records() { return delegate.records(); }
  @Override public List<List<OutboxRecord>> waves() { return delegate.waves(); }
  @Override public long fencingToken() { return delegate.fencingToken(); }
  @Override public Instant deadline() { return delegate.deadline(); }
  @Override public boolean claimHeld() { return delegate.claimHeld(); }
  @Override public boolean heldBack(OutboxRecord record) { return delegate.heldBack(record); }
  @Override public void confirm(OutboxRecord record) { delegate.confirm(record); }
  @Override public void fail(OutboxRecord record, Throwable cause) { delegate.fail(record, cause); }

  @Override
  public boolean whenSettled(Consumer<List<RecordOutcome>> listener) {
    return delegate.whenSettled(listener);
  }
}
