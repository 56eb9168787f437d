package dev.outboxer.benchmark;

import com.gruelbox.transactionoutbox.TransactionOutboxEntry;
import com.gruelbox.transactionoutbox.TransactionOutboxListener;

/**
 * The no-op task gruelbox invokes, and the listener that sees its outcome: like {@link
 * BenchRelay}, it does nothing with a message except fail the ones of a failing group. A message
 * counts when gruelbox reports success, which it does after the transaction that deleted the
 * entry committed.
 */
final class GruelboxTask implements BenchTask, TransactionOutboxListener {

  private volatile DrainProbe probe;
  private volatile String failingGroup;
  private volatile Receipts receipts;

  /** What the next measurement wants to see; any part may be null. */
  void use(DrainProbe drainProbe, String failing, Receipts latencyReceipts) {
    this.probe = drainProbe;
    this.failingGroup = failing;
    this.receipts = latencyReceipts;
  }

  @Override
  public void relay(String groupKey, long sequence, String note) {
    DrainProbe probe = this.probe;
    String failingGroup = this.failingGroup;
    Receipts receipts = this.receipts;
    if (probe != null) {
      probe.handed();
    }
    if (failingGroup != null && failingGroup.equals(groupKey)) {
      throw new IllegalStateException("the benchmark fails every message of " + failingGroup);
    }
    if (receipts != null) {
      receipts.received(sequence);
    }
  }

  @Override
  public void success(TransactionOutboxEntry entry) {
    DrainProbe probe = this.probe;
    if (probe != null) {
      Object[] args = entry.getInvocation().getArgs();
      probe.committed(new long[] {((Number) args[1]).longValue()}, new String[] {(String) args[0]});
    }
  }
}
