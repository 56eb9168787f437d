-- Outboxer schema for SQLite 3.35+ (schema version 1), with the xerial sqlite-jdbc driver. One process only (see
-- the README, "SQLite"). Run once per database file before the application starts, or let Outboxer create it
-- (outbox.schema=create).
--
-- SQLite has one writer at a time: a transaction that writes holds the whole database until it ends. Outboxer
-- relies on that instead of row locks (SQLite has no FOR UPDATE): a partition claim, an admin operation or a change
-- of the rules begins with a write, which waits (busy_timeout) for the transaction that writes now.
--
-- Ids. SQLite has no sequences: outbox_sequence holds one counter row per sequence the other databases have, with
-- the last value handed out. A publish raises outbox_message_seq by one in the publishing transaction, under the
-- write lock it keeps until it commits, so message ids increase in commit order (serialize-writes has nothing to
-- add). A counter that rolls back gives its value back; for message ids that is harmless (the row went with it).
-- Fencing tokens (outbox_fencing_seq) must never be handed out twice, even after a rollback of the claim that drew
-- one: Outboxer keeps the highest token it handed out in the process and draws above both (see BatchStatements).
--
-- Times are UTC, stored as ISO-8601 text as the driver writes a java.time.LocalDateTime ('2024-03-31T02:30:00.5',
-- fractions in groups of three digits, seconds left out when zero), which sorts in time order as text.
CREATE TABLE outbox_sequence (
    name            VARCHAR(64)   NOT NULL,
    last_value      BIGINT        NOT NULL,
    CONSTRAINT outbox_sequence_pk PRIMARY KEY (name)
);
INSERT INTO outbox_sequence (name, last_value) VALUES ('outbox_message_seq', 0);
INSERT INTO outbox_sequence (name, last_value) VALUES ('outbox_fencing_seq', 0);

-- id is an INTEGER PRIMARY KEY, SQLite's rowid: the table is stored in id order. Outboxer sets it from the counter
-- (never from the rowid's own allocation, which reuses the largest id after a delete).
CREATE TABLE outbox_message (
    id              INTEGER       NOT NULL PRIMARY KEY,
    outbox          VARCHAR(100)  NOT NULL,
    partition_no    INTEGER       NOT NULL,
    partition_key   INTEGER       NOT NULL,
    group_key       VARCHAR(255),
    message_type    VARCHAR(255)  NOT NULL,
    content_type    VARCHAR(100)  NOT NULL,
    payload         BLOB          NOT NULL,
    headers         TEXT,
    status          VARCHAR(8)    NOT NULL,
    attempts        INTEGER       NOT NULL,
    next_attempt_at TIMESTAMP,
    created_at      TIMESTAMP     NOT NULL,
    last_attempt_at TIMESTAMP,
    last_error      VARCHAR(2000)
);
CREATE INDEX outbox_message_ready_idx ON outbox_message (outbox, partition_no, status, id);
CREATE INDEX outbox_message_retry_idx ON outbox_message (outbox, partition_no, next_attempt_at)
    WHERE next_attempt_at IS NOT NULL;

CREATE TABLE outbox_partition (
    outbox          VARCHAR(100)  NOT NULL,
    partition_no    INTEGER       NOT NULL,
    fencing_token   BIGINT        NOT NULL,
    owner_node      VARCHAR(200),
    owner_instance  VARCHAR(64),
    claimed_at      TIMESTAMP,
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
    updated_at      TIMESTAMP     NOT NULL,
    updated_by      VARCHAR(200)  NOT NULL,
    CONSTRAINT outbox_rules_pk PRIMARY KEY (outbox)
);
