package dev.outboxer.cdi.internal.store;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.Table;
import java.io.Serializable;
import java.util.Objects;

/**
 * Lock rows for {@code serialize-writes} on databases without transaction-scoped advisory locks: a
 * publisher of a group locks the slot its group key hashes to, pessimistically, until its
 * transaction ends. Groups that share a slot wait for each other too.
 */
@Entity
@Table(name = "outbox_group_lock")
@IdClass(OutboxGroupLockEntity.Key.class)
public class OutboxGroupLockEntity {

  /** Slots per outbox: two busy groups share one with probability 1/1024. */
  public static final int SLOTS = 1024;

  @Id
  @Column(name = "outbox", length = 100)
  private String outbox;

  @Id
  @Column(name = "slot")
  private int slot;

  protected OutboxGroupLockEntity() {}

  public OutboxGroupLockEntity(String outbox, int slot) {
    this.outbox = outbox;
    this.slot = slot;
  }

  /** The composite key. */
  public static class Key implements Serializable {
    private static final long serialVersionUID = 1L;
    private String outbox;
    private int slot;

    public Key() {}

    public Key(String outbox, int slot) {
      this.outbox = outbox;
      this.slot = slot;
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Key that && slot == that.slot && Objects.equals(outbox, that.outbox);
    }

    @Override
    public int hashCode() {
      return Objects.hash(outbox, slot);
    }
  }
}
