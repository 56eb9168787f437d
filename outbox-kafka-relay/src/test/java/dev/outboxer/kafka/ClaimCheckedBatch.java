package dev.outboxer.kafka;

import dev.outboxer.Ordering;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.RelayBatch;
import dev.outboxer.testing.TestRelayBatch;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntSupplier;

/**
 * A {@link TestRelayBatch} whose claim lapses, or whose node stalls, at a chosen moment, as a node
 * paused past its lease would see it: at the first {@link #claimHeld()} check after a number of the
 * node's records were acknowledged, or right after the first confirmation.
 */
final class ClaimCheckedBatch implements RelayBatch {

  private final TestRelayBatch delegate;
  private final AtomicBoolean fired = new AtomicBoolean();
  private volatile IntSupplier acks = () -> 0;
  private volatile int afterAcks = Integer.MAX_VALUE;
  private volatile StallingInterceptor.Gate stallAfterCheck;
  private volatile boolean loseClaimAtCheck;
  private volatile boolean loseClaimAfterFirstConfirm;

  ClaimCheckedBatch(TestRelayBatch delegate) {
    this.delegate = delegate;
  }

  /** The claim lapses at the first claim check after {@code n} acknowledgements. */
  ClaimCheckedBatch loseClaimAtCheckAfterAcks(IntSupplier acks, int n) {
    this.acks = acks;
    this.afterAcks = n;
    this.loseClaimAtCheck = true;
    return this;
  }

  /**
   * The first claim check after {@code n} acknowledgements passes, and the node stalls right
   * after it, before it can act on it: the window a GC pause can hit between a check and a commit.
   */
  ClaimCheckedBatch stallAfterCheckAfterAcks(IntSupplier acks, int n, StallingInterceptor.Gate gate) {
    this.acks = acks;
    this.afterAcks = n;
    this.stallAfterCheck = gate;
    return this;
  }

  /** The claim lapses right after the first record is confirmed. */
  ClaimCheckedBatch loseClaimAfterFirstConfirm() {
    this.loseClaimAfterFirstConfirm = true;
    return this;
  }

  TestRelayBatch delegate() {
    return delegate;
  }

  @Override
  public boolean claimHeld() {
    boolean due = acks.getAsInt() >= afterAcks && !fired.get();
    if (due && loseClaimAtCheck && fired.compareAndSet(false, true)) {
      delegate.loseClaim();
    }
    boolean held = delegate.claimHeld();
    if (due && stallAfterCheck != null && fired.compareAndSet(false, true)) {
      stallAfterCheck.stall();
    }
    return held;
  }

  @Override
  public void confirm(OutboxRecord record) {
    delegate.confirm(record);
    if (loseClaimAfterFirstConfirm) {
      delegate.loseClaim();
    }
  }

  @Override public String outbox() { return delegate.outbox(); }
  @Override public int partition() { return delegate.partition(); }
  @Override public Ordering ordering() { return delegate.ordering(); }
  @Override public List<OutboxRecord> records() { return delegate.records(); }
  @Override public long fencingToken() { return delegate.fencingToken(); }
  @Override public Instant deadline() { return delegate.deadline(); }
  @Override public void fail(OutboxRecord record, Throwable cause) { delegate.fail(record, cause); }
  @Override public boolean heldBack(OutboxRecord record) { return delegate.heldBack(record); }
}
