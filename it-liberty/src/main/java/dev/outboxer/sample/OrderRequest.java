package dev.outboxer.sample;

/** What a client sends to place an order. */
public record OrderRequest(String customer, String item, int quantity) {

  /** @return a description of what is wrong, or {@code null} if the request is valid */
  public String problem() {
    if (customer == null || customer.isBlank() || customer.length() > 100) {
      return "customer must be 1 to 100 characters";
    }
    if (item == null || item.isBlank() || item.length() > 200) {
      return "item must be 1 to 200 characters";
    }
    if (quantity < 1) {
      return "quantity must be at least 1";
    }
    return null;
  }
}
