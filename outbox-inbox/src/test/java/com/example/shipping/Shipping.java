package com.example.shipping;

/** The application's own service, which the MDB example calls for each new message. */
public interface Shipping {

  void orderPaid(String json);
}
