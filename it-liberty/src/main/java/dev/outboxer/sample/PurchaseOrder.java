package dev.outboxer.sample;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.LocalDateTime;

/** The sample's own business entity: an order, written in the same transaction as its events. */
@Entity
@Table(name = "purchase_order")
public class PurchaseOrder {

  @Id
  @GeneratedValue(strategy = GenerationType.IDENTITY)
  private Long id;

  @Column(name = "customer", nullable = false, length = 100)
  private String customer;

  @Column(name = "item", nullable = false, length = 200)
  private String item;

  @Column(name = "quantity", nullable = false)
  private int quantity;

  /** {@code cdi} or {@code ejb}: which of the two service beans wrote it. */
  @Column(name = "placed_via", nullable = false, length = 10)
  private String placedVia;

  /** UTC. */
  @Column(name = "placed_at", nullable = false)
  private LocalDateTime placedAt;

  protected PurchaseOrder() {}

  public PurchaseOrder(String customer, String item, int quantity, String placedVia, LocalDateTime placedAt) {
    this.customer = customer;
    this.item = item;
    this.quantity = quantity;
    this.placedVia = placedVia;
    this.placedAt = placedAt;
  }

  public Long getId() { return id; }
  public String getCustomer() { return customer; }
  public String getItem() { return item; }
  public int getQuantity() { return quantity; }
  public String getPlacedVia() { return placedVia; }
  public LocalDateTime getPlacedAt() { return placedAt; }
}
