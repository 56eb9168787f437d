-- Outboxer schema for PostgreSQL 12+. Run once per database, before the application starts.
-- The sequence keeps the default CACHE 1: a per-session cache would hand out ids out of insertion order.
CREATE SEQUENCE outbox_message_seq START WITH 1 INCREMENT BY 1;

CREATE TABLE outbox_message (
    id              BIGINT        NOT NULL,
    outbox          VARCHAR(100)  NOT NULL,
    partition_no    INTEGER       NOT NULL,
    group_key       VARCHAR(255),
    message_type    VARCHAR(255)  NOT NULL,
    content_type    VARCHAR(100)  NOT NULL,
    payload         BYTEA         NOT NULL,
    headers         VARCHAR(4000),
    status          VARCHAR(8)    NOT NULL,
    attempts        INTEGER       NOT NULL,
    next_attempt_at TIMESTAMP(6),
    created_at      TIMESTAMP(6)  NOT NULL,
    last_attempt_at TIMESTAMP(6),
    last_error      VARCHAR(2000),
    CONSTRAINT outbox_message_pk PRIMARY KEY (id)
);
-- Workers: the pending rows of one partition, by id.
CREATE INDEX outbox_message_partition_idx ON outbox_message (outbox, partition_no, status, id);
-- Workers: "is an earlier message of this group waiting for a retry?" Keyed on the retry time, so the
-- check reads only messages that failed, not every earlier (or deleted, not yet vacuumed) one.
CREATE INDEX outbox_message_group_idx ON outbox_message (outbox, partition_no, group_key, next_attempt_at);
-- Counts, dead-letter listing and revival per outbox.
CREATE INDEX outbox_message_status_idx ON outbox_message (outbox, status, id);

CREATE TABLE outbox_partition (
    outbox          VARCHAR(100)  NOT NULL,
    partition_no    INTEGER       NOT NULL,
    CONSTRAINT outbox_partition_pk PRIMARY KEY (outbox, partition_no)
);

CREATE TABLE outbox_rules (
    outbox          VARCHAR(100)  NOT NULL,
    ordering_mode   VARCHAR(8)    NOT NULL,
    partition_count INTEGER       NOT NULL,
    max_attempts    BIGINT,
    backoff_min_ms  BIGINT        NOT NULL,
    backoff_max_ms  BIGINT        NOT NULL,
    updated_at      TIMESTAMP(6)  NOT NULL,
    updated_by      VARCHAR(200)  NOT NULL,
    CONSTRAINT outbox_rules_pk PRIMARY KEY (outbox)
);

CREATE TABLE outbox_group_lock (
    outbox          VARCHAR(100)  NOT NULL,
    slot            INTEGER       NOT NULL,
    CONSTRAINT outbox_group_lock_pk PRIMARY KEY (outbox, slot)
);
