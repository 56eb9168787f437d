package dev.outboxer.spi;

/**
 * Decorates the relay of every outbox: the place to observe or enrich delivery (a tracing span per
 * record, audit, metrics of one's own) without writing a relay.
 *
 * <p>Outboxer calls every CDI bean of this type once per outbox at start-up, on nodes with
 * workers, and hands batches to the relay it returns. The returned relay must keep the {@link
 * Relay} contract towards the batch it is given: report each record of it exactly as the wrapped
 * relay reported its counterpart, and ask {@link RelayBatch#heldBack} before handing a record on.
 * What finally became of each record (the core's decision under the contract and the batch
 * transaction's outcome) is told to {@link RelayBatch#whenSettled} listeners: label records by it
 * rather than by what the relay reported. Order of several interceptors: undefined. Where the
 * wrapped relay does not {@linkplain Relay#usesWorkerTransaction() use the worker's transaction},
 * there is none while the returned relay runs: an interceptor must not write to the outbox's
 * database in it then (Outboxer asks the wrapped relay, not the interceptor).
 */
public interface RelayInterceptor {

  /**
   * @param relay the relay to decorate
   * @param context the outbox it relays for
   * @return the relay to use instead; {@code relay} itself to leave it alone
   */
  Relay intercept(Relay relay, RelayContext context);
}
