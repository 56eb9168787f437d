package dev.outboxer.testing;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** The business entity of the tests: written in the same transaction as the messages. */
@Entity
@Table(name = "test_order")
public class TestOrder {

  @Id
  @Column(name = "id")
  private long id;

  @Column(name = "description", nullable = false, length = 200)
  private String description;

  protected TestOrder() {}

  public TestOrder(long id, String description) {
    this.id = id;
    this.description = description;
  }

  public long id() {
    return id;
  }

  public String description() {
    return description;
  }
}
