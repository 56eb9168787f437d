package dev.outboxer.cdi.internal.store;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.LocalDateTime;

/**
 * The rules in force for one outbox, persisted so that every node sharing the database agrees on
 * them and a changed partition count on a live backlog is detected at start-up instead of
 * silently reordering groups.
 */
@Entity
@Table(name = "outbox_rules")
public class OutboxRulesEntity {

  @Id
  @Column(name = "outbox", length = 100)
  private String outbox;

  @Column(name = "ordering_mode", nullable = false, length = 8)
  private String ordering;

  @Column(name = "partition_count", nullable = false)
  private int partitions;

  /** Null means infinity. */
  @Column(name = "max_attempts")
  private Long maxAttempts;

  @Column(name = "backoff_min_ms", nullable = false)
  private long backoffMinMillis;

  @Column(name = "backoff_max_ms", nullable = false)
  private long backoffMaxMillis;

  @Column(name = "updated_at", nullable = false)
  private LocalDateTime updatedAt;

  @Column(name = "updated_by", nullable = false, length = 200)
  private String updatedBy;

  protected OutboxRulesEntity() {}

  public OutboxRulesEntity(String outbox) {
    this.outbox = outbox;
  }

  public void update(String ordering, int partitions, Long maxAttempts, long backoffMinMillis,
      long backoffMaxMillis, LocalDateTime updatedAt, String updatedBy) {
    this.ordering = ordering;
    this.partitions = partitions;
    this.maxAttempts = maxAttempts;
    this.backoffMinMillis = backoffMinMillis;
    this.backoffMaxMillis = backoffMaxMillis;
    this.updatedAt = updatedAt;
    this.updatedBy = updatedBy.length() > 200 ? updatedBy.substring(0, 200) : updatedBy;
  }

  public String outbox() { return outbox; }
  public String ordering() { return ordering; }
  public int partitions() { return partitions; }
  public Long maxAttempts() { return maxAttempts; }
  public long backoffMinMillis() { return backoffMinMillis; }
  public long backoffMaxMillis() { return backoffMaxMillis; }
  public String updatedBy() { return updatedBy; }
}
