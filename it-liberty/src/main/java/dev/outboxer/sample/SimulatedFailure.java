package dev.outboxer.sample;

import jakarta.ejb.ApplicationException;

/**
 * Thrown on purpose after an order and its events were written: the transaction rolls back, and
 * neither the order nor any of its events may survive. Unchecked, so {@code @Transactional} rolls
 * back; an application exception with {@code rollback = true}, so the EJB rolls back and throws it
 * as it is rather than wrapped.
 */
@ApplicationException(rollback = true)
public class SimulatedFailure extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final transient PlacedOrder attempted;

  public SimulatedFailure(PlacedOrder attempted) {
    super("Simulated failure after order " + attempted.orderId() + " and messages " + attempted.orderPlacedMessageId()
        + ", " + attempted.auditMessageId() + ", " + attempted.shipmentMessageId()
        + " were written: the transaction rolled back, none of them exists");
    this.attempted = attempted;
  }

  /** What was written, then rolled back. */
  public PlacedOrder attempted() {
    return attempted;
  }
}
