-- Outboxer schema for MariaDB 10.6+ (schema version 1; sequences, SKIP LOCKED, INSERT ... RETURNING). MySQL has no
-- sequences and is not supported. Run once per database before the application starts, or let Outboxer create it
-- (outbox.schema=create), or apply the Flyway/Liquibase migrations shipped in the jar.
-- MariaDB caches sequence values on the server, not per connection, so ids stay in allocation order.
CREATE SEQUENCE outbox_message_seq START WITH 1 INCREMENT BY 1;
-- Fencing tokens: one value per claim of a partition, never given back by a rollback.
CREATE SEQUENCE outbox_fencing_seq START WITH 1 INCREMENT BY 1;

-- Group keys use utf8mb4_nopad_bin: exact bytes, so 'a' and 'a ' (PAD SPACE collations compare them equal) and
-- 'a' and 'A' (case-insensitive collations) are different groups, as they are in Java and on PostgreSQL.
CREATE TABLE outbox_message (
    id              BIGINT        NOT NULL,
    outbox          VARCHAR(100)  NOT NULL,
    partition_no    INTEGER       NOT NULL,
    partition_key   INTEGER       NOT NULL,
    group_key       VARCHAR(255)  CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin,
    message_type    VARCHAR(255)  NOT NULL,
    content_type    VARCHAR(100)  NOT NULL,
    payload         LONGBLOB      NOT NULL,
    headers         MEDIUMTEXT,
    status          VARCHAR(8)    NOT NULL,
    attempts        INTEGER       NOT NULL,
    next_attempt_at DATETIME(6),
    created_at      DATETIME(6)   NOT NULL,
    last_attempt_at DATETIME(6),
    last_error      VARCHAR(2000),
    CONSTRAINT outbox_message_pk PRIMARY KEY (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
CREATE INDEX outbox_message_ready_idx ON outbox_message (outbox, partition_no, status, id);
CREATE INDEX outbox_message_retry_idx ON outbox_message (outbox, partition_no, next_attempt_at);

CREATE TABLE outbox_partition (
    outbox          VARCHAR(100)  NOT NULL,
    partition_no    INTEGER       NOT NULL,
    fencing_token   BIGINT        NOT NULL,
    owner_node      VARCHAR(200),
    owner_instance  VARCHAR(64),
    claimed_at      DATETIME(6),
    CONSTRAINT outbox_partition_pk PRIMARY KEY (outbox, partition_no)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

CREATE TABLE outbox_rules (
    outbox          VARCHAR(100)  NOT NULL,
    ordering_mode   VARCHAR(8)    NOT NULL,
    partition_count INTEGER       NOT NULL,
    layout_version  INTEGER       NOT NULL,
    max_attempts    BIGINT,
    backoff_min_ms  BIGINT        NOT NULL,
    backoff_max_ms  BIGINT        NOT NULL,
    updated_at      DATETIME(6)   NOT NULL,
    updated_by      VARCHAR(200)  NOT NULL,
    CONSTRAINT outbox_rules_pk PRIMARY KEY (outbox)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;

-- serialize-writes: one lock row per group key that is being published with the option on, locked by the publisher
-- until its transaction ends (MariaDB has no transaction-scoped advisory lock). Nothing removes rows: one small row
-- stays per group key ever published with the option. Deleting rows of groups no longer used is safe at any time
-- (a publish inserts a missing row again).
CREATE TABLE outbox_group_lock (
    outbox          VARCHAR(100)  NOT NULL,
    group_key       VARCHAR(255)  CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
    locked_at       DATETIME(6)   NOT NULL,
    CONSTRAINT outbox_group_lock_pk PRIMARY KEY (outbox, group_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin;
