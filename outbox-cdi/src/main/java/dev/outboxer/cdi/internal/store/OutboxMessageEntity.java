package dev.outboxer.cdi.internal.store;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.LocalDateTime;

/**
 * One message row. The id is assigned by Outboxer from the {@code outbox_message_seq} sequence
 * (not by the JPA provider) so that it is taken after the optional write lock, in insertion order.
 * Times are UTC.
 */
@Entity
@Table(name = "outbox_message")
public class OutboxMessageEntity {

  public static final int MAX_GROUP_KEY_LENGTH = 255;
  public static final int MAX_TYPE_LENGTH = 255;
  public static final int MAX_CONTENT_TYPE_LENGTH = 100;
  public static final int MAX_HEADERS_LENGTH = 4000;
  public static final int MAX_ERROR_LENGTH = 2000;

  @Id
  @Column(name = "id")
  private long id;

  @Column(name = "outbox", nullable = false, length = 100)
  private String outbox;

  @Column(name = "partition_no", nullable = false)
  private int partition;

  @Column(name = "group_key", length = MAX_GROUP_KEY_LENGTH)
  private String groupKey;

  @Column(name = "message_type", nullable = false, length = MAX_TYPE_LENGTH)
  private String type;

  @Column(name = "content_type", nullable = false, length = MAX_CONTENT_TYPE_LENGTH)
  private String contentType;

  @Column(name = "payload", nullable = false, length = 1_000_000_000)
  private byte[] payload;

  @Column(name = "headers", length = MAX_HEADERS_LENGTH)
  private String headers;

  /** A plain string, not {@code @Enumerated}: some providers map enums to native ENUM types that the DDL does not use. */
  @Column(name = "status", nullable = false, length = 8)
  private String status;

  @Column(name = "attempts", nullable = false)
  private int attempts;

  /** Null until the first failure: a fresh message is ready whatever the clocks of the nodes say. */
  @Column(name = "next_attempt_at")
  private LocalDateTime nextAttemptAt;

  @Column(name = "created_at", nullable = false)
  private LocalDateTime createdAt;

  @Column(name = "last_attempt_at")
  private LocalDateTime lastAttemptAt;

  @Column(name = "last_error", length = MAX_ERROR_LENGTH)
  private String lastError;

  protected OutboxMessageEntity() {}

  public OutboxMessageEntity(long id, String outbox, int partition, String groupKey, String type,
      String contentType, byte[] payload, String headers, LocalDateTime createdAt) {
    this.id = id;
    this.outbox = outbox;
    this.partition = partition;
    this.groupKey = groupKey;
    this.type = type;
    this.contentType = contentType;
    this.payload = payload;
    this.headers = headers;
    this.status = MessageStatus.PENDING.name();
    this.createdAt = createdAt;
  }

  public long id() { return id; }
  public String outbox() { return outbox; }
  public int partition() { return partition; }
  public String groupKey() { return groupKey; }
  public String type() { return type; }
  public String contentType() { return contentType; }
  public byte[] payload() { return payload; }
  public String headers() { return headers; }
  public MessageStatus status() { return MessageStatus.valueOf(status); }
  public int attempts() { return attempts; }
  public LocalDateTime nextAttemptAt() { return nextAttemptAt; }
  public LocalDateTime createdAt() { return createdAt; }
  public LocalDateTime lastAttemptAt() { return lastAttemptAt; }
  public String lastError() { return lastError; }
}
