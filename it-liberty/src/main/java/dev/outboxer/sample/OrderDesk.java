package dev.outboxer.sample;

import jakarta.ejb.Stateless;
import jakarta.inject.Inject;

/** Places orders in a stateless EJB (container-managed transaction, REQUIRED). */
@Stateless
public class OrderDesk {

  @Inject
  OrderWriter writer;

  public PlacedOrder place(OrderRequest request) {
    return writer.write(request, "ejb");
  }

  /** Writes the order and its events, then fails: the transaction rolls back. */
  public PlacedOrder placeThenFail(OrderRequest request) {
    throw new SimulatedFailure(writer.write(request, "ejb"));
  }
}
