-- Outboxer schema for H2 2.x (schema version 1): tests and embedded demos on one JVM.
CREATE SEQUENCE outbox_message_seq START WITH 1 INCREMENT BY 1;
CREATE SEQUENCE outbox_fencing_seq START WITH 1 INCREMENT BY 1;

-- H2 counts a VARCHAR's length in UTF-16 units, where a character outside the Basic Multilingual Plane (an emoji)
-- takes two. Outboxer allows group keys and types of 255 characters (code points), as PostgreSQL and MariaDB count
-- them: hence 510 here.
CREATE TABLE outbox_message (
    id              BIGINT        NOT NULL,
    outbox          VARCHAR(100)  NOT NULL,
    partition_no    INTEGER       NOT NULL,
    partition_key   INTEGER       NOT NULL,
    group_key       VARCHAR(510),
    message_type    VARCHAR(510)  NOT NULL,
    content_type    VARCHAR(100)  NOT NULL,
    payload         VARBINARY(1000000000) NOT NULL,
    headers         CHARACTER LARGE OBJECT,
    status          VARCHAR(8)    NOT NULL,
    attempts        INTEGER       NOT NULL,
    next_attempt_at TIMESTAMP(6),
    created_at      TIMESTAMP(6)  NOT NULL,
    last_attempt_at TIMESTAMP(6),
    last_error      VARCHAR(2000),
    CONSTRAINT outbox_message_pk PRIMARY KEY (id)
);
CREATE INDEX outbox_message_ready_idx ON outbox_message (outbox, partition_no, status, id);
CREATE INDEX outbox_message_retry_idx ON outbox_message (outbox, partition_no, next_attempt_at);

CREATE TABLE outbox_partition (
    outbox          VARCHAR(100)  NOT NULL,
    partition_no    INTEGER       NOT NULL,
    fencing_token   BIGINT        NOT NULL,
    owner_node      VARCHAR(200),
    owner_instance  VARCHAR(64),
    claimed_at      TIMESTAMP(6),
    CONSTRAINT outbox_partition_pk PRIMARY KEY (outbox, partition_no)
);

CREATE TABLE outbox_rules (
    outbox          VARCHAR(100)  NOT NULL,
    ordering_mode   VARCHAR(8)    NOT NULL,
    partition_count INTEGER       NOT NULL,
    layout_version  INTEGER       NOT NULL,
    max_attempts    BIGINT,
    backoff_min_ms  BIGINT        NOT NULL,
    backoff_max_ms  BIGINT        NOT NULL,
    updated_at      TIMESTAMP(6)  NOT NULL,
    updated_by      VARCHAR(200)  NOT NULL,
    CONSTRAINT outbox_rules_pk PRIMARY KEY (outbox)
);

CREATE TABLE outbox_group_lock (
    outbox          VARCHAR(100)  NOT NULL,
    group_key       VARCHAR(510)  NOT NULL,
    locked_at       TIMESTAMP(6)  NOT NULL,
    CONSTRAINT outbox_group_lock_pk PRIMARY KEY (outbox, group_key)
);
