package dev.outboxer.local;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.SequenceGenerator;
import jakarta.persistence.Table;

/**
 * What a handler writes per message, through the outbox's EntityManager. Ids come from a sequence,
 * one per insert, so that the committed rows of a group tell the order they were written in.
 */
@Entity
@Table(name = "local_effect")
public class Effect {

  /** The table, created by the tests (Hibernate only validates). */
  static final String[] DDL = {
    "DROP TABLE IF EXISTS local_effect",
    "DROP SEQUENCE IF EXISTS local_effect_seq",
    "CREATE SEQUENCE local_effect_seq START WITH 1 INCREMENT BY 1",
    "CREATE TABLE local_effect (id BIGINT NOT NULL PRIMARY KEY, message_id BIGINT NOT NULL,"
        + " outbox VARCHAR(100) NOT NULL, group_key VARCHAR(100) NOT NULL, seq INTEGER NOT NULL CHECK (seq > 0),"
        + " partition_no INTEGER NOT NULL, thread_name VARCHAR(200) NOT NULL)",
    "CREATE INDEX local_effect_group ON local_effect (outbox, group_key)"
  };

  @Id
  @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "local_effect_seq")
  @SequenceGenerator(name = "local_effect_seq", sequenceName = "local_effect_seq", allocationSize = 1)
  @Column(name = "id")
  private long id;

  @Column(name = "message_id", nullable = false)
  private long messageId;

  @Column(name = "outbox", nullable = false, length = 100)
  private String outbox;

  @Column(name = "group_key", nullable = false, length = 100)
  private String groupKey;

  @Column(name = "seq", nullable = false)
  private int seq;

  @Column(name = "partition_no", nullable = false)
  private int partition;

  @Column(name = "thread_name", nullable = false, length = 200)
  private String thread;

  protected Effect() {}

  /** An effect the database refuses (its CHECK constraint), for a handler whose write fails only at flush. */
  static Effect refused(long messageId, String outbox, String groupKey, int partition) {
    return new Effect(messageId, outbox, groupKey, -1, partition, "refused");
  }

  Effect(long messageId, String outbox, String groupKey, int seq, int partition, String thread) {
    this.messageId = messageId;
    this.outbox = outbox;
    this.groupKey = groupKey;
    this.seq = seq;
    this.partition = partition;
    this.thread = thread;
  }
}
