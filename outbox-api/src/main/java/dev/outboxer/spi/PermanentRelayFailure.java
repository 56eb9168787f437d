package dev.outboxer.spi;

/**
 * A failure that retrying cannot cure: the destination refused the record for what it is (a
 * schema it rejects, an addressee that does not exist), not for the state it is in. A relay
 * reports it with {@link RelayBatch#fail(OutboxRecord, Throwable) batch.fail(record, new
 * PermanentRelayFailure("…", cause))}; an application handler of the local relay may throw it.
 *
 * <h2>What it guarantees</h2>
 * <ul>
 *   <li>The record dies at once, whatever {@code outbox.<name>.max-attempts} says ({@code
 *       infinity} included): its attempt is counted, it is not retried, and its group moves on
 *       exactly as when a message dies of its attempts (the later messages of the group go out in
 *       order; nothing else of the batch changes).</li>
 *   <li>It counts wherever it is in the failure's chain: the failure itself or one of its causes
 *       (the core looks at the same {@value Failures#MAX_DEPTH} causes as {@link Failures}), so a
 *       relay or handler may wrap it.</li>
 *   <li>The message's stored last error starts with {@code "permanent: the relay marked it
 *       permanent: "} followed by the failure's description, and an application observing {@link
 *       dev.outboxer.DeadMessage} hears of it once the death is committed.</li>
 * </ul>
 *
 * <h2>What it does not</h2>
 * <ul>
 *   <li>It decides nothing while the batch has not committed: a batch that rolls back leaves the
 *       record pending unless its failure could be recorded on its own (see the failures page of
 *       the manual).</li>
 *   <li>Thrown out of {@link Relay#relay(RelayBatch)} instead of reported, it fails, as any thrown
 *       failure does, every record the relay had not reported (the first unreported record of each
 *       group and every unreported ungrouped record): all of them die. Report it with {@code fail}
 *       for one record.</li>
 *   <li>A failure the core makes up itself (a relay that did not report in time, or returned
 *       without reporting) is never permanent, even if a cause of it is one.</li>
 * </ul>
 *
 * <p>Failures of a given class can also be made permanent without changing the relay: {@code
 * outbox.<name>.dead-on}.
 */
public class PermanentRelayFailure extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /**
   * @param message why the record can never be delivered; stored as part of its last error
   */
  public PermanentRelayFailure(String message) {
    super(message);
  }

  /**
   * @param message why the record can never be delivered; stored as part of its last error
   * @param cause the destination's own failure, described after the message
   */
  public PermanentRelayFailure(String message, Throwable cause) {
    super(message, cause);
  }
}
