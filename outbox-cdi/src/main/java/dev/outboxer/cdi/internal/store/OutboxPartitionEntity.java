package dev.outboxer.cdi.internal.store;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.IdClass;
import jakarta.persistence.Table;
import java.io.Serializable;
import java.util.Objects;

/**
 * One row per partition of an outbox. A worker holds a partition for the length of one batch
 * transaction by locking this row; the lock, not any column, is the claim, so a crashed node's
 * claim ends with its connection.
 */
@Entity
@Table(name = "outbox_partition")
@IdClass(OutboxPartitionEntity.Key.class)
public class OutboxPartitionEntity {

  @Id
  @Column(name = "outbox", length = 100)
  private String outbox;

  @Id
  @Column(name = "partition_no")
  private int partition;

  protected OutboxPartitionEntity() {}

  public OutboxPartitionEntity(String outbox, int partition) {
    this.outbox = outbox;
    this.partition = partition;
  }

  public String outbox() { return outbox; }
  public int partition() { return partition; }

  /** The composite key. */
  public static class Key implements Serializable {
    private static final long serialVersionUID = 1L;
    private String outbox;
    private int partition;

    public Key() {}

    public Key(String outbox, int partition) {
      this.outbox = outbox;
      this.partition = partition;
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Key that && partition == that.partition && Objects.equals(outbox, that.outbox);
    }

    @Override
    public int hashCode() {
      return Objects.hash(outbox, partition);
    }
  }
}
