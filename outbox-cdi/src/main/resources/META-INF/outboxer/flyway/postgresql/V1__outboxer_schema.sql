-- Outboxer schema for PostgreSQL 12+ (schema version 1). Run once per database before the application starts,
-- or let Outboxer create it (outbox.schema=create), or apply the Flyway/Liquibase migrations shipped in the jar.
-- Message ids: one nextval per message. Keep CACHE 1 (the default): a per-session cache would hand out ids out of
-- insertion order.
CREATE SEQUENCE outbox_message_seq START WITH 1 INCREMENT BY 1;
-- Fencing tokens: one nextval per claim of a partition. A sequence, not a counter column, so that a claim whose
-- transaction rolls back never gives its token back to the next claim.
CREATE SEQUENCE outbox_fencing_seq START WITH 1 INCREMENT BY 1;

CREATE TABLE outbox_message (
    id              BIGINT        NOT NULL,
    outbox          VARCHAR(100)  NOT NULL,
    partition_no    INTEGER       NOT NULL,
    -- A stable, non-negative hash of the group key (of the id for ungrouped messages): the partition is
    -- partition_key modulo the outbox's partition count, so a change of the count can re-home rows in SQL.
    partition_key   INTEGER       NOT NULL,
    group_key       VARCHAR(255),
    message_type    VARCHAR(255)  NOT NULL,
    content_type    VARCHAR(100)  NOT NULL,
    payload         BYTEA         NOT NULL,
    headers         TEXT,
    status          VARCHAR(8)    NOT NULL,
    attempts        INTEGER       NOT NULL,
    -- UTC. Set only while a failed message waits for its retry; NULL for fresh and for dead messages.
    next_attempt_at TIMESTAMP(6),
    created_at      TIMESTAMP(6)  NOT NULL,
    last_attempt_at TIMESTAMP(6),
    last_error      VARCHAR(2000),
    CONSTRAINT outbox_message_pk PRIMARY KEY (id)
);
-- Workers: the fresh pending rows of one partition, by id (reads start where the partition's last batch ended).
-- Partial, so that it holds no row with a retry time: no plan, whatever the statistics say, can answer the read's
-- question "which rows wait for a retry" by walking a partition's whole backlog through this index.
CREATE INDEX outbox_message_ready_idx ON outbox_message (outbox, partition_no, id)
    WHERE status = 'PENDING' AND next_attempt_at IS NULL;
-- Workers and admin: the messages that wait for a retry (few), which hold back the rest of their group.
CREATE INDEX outbox_message_retry_idx ON outbox_message (outbox, partition_no, next_attempt_at)
    WHERE next_attempt_at IS NOT NULL;

CREATE TABLE outbox_partition (
    outbox          VARCHAR(100)  NOT NULL,
    partition_no    INTEGER       NOT NULL,
    -- The token of the last claim (from outbox_fencing_seq), its node and the node's run instance, and when.
    fencing_token   BIGINT        NOT NULL,
    owner_node      VARCHAR(200),
    owner_instance  VARCHAR(64),
    claimed_at      TIMESTAMP(6),
    CONSTRAINT outbox_partition_pk PRIMARY KEY (outbox, partition_no)
);

CREATE TABLE outbox_rules (
    outbox          VARCHAR(100)  NOT NULL,
    ordering_mode   VARCHAR(8)    NOT NULL,
    -- The partition count in force for the whole cluster: publishers and workers read it from here.
    partition_count INTEGER       NOT NULL,
    layout_version  INTEGER       NOT NULL,
    max_attempts    BIGINT,
    backoff_min_ms  BIGINT        NOT NULL,
    backoff_max_ms  BIGINT        NOT NULL,
    updated_at      TIMESTAMP(6)  NOT NULL,
    updated_by      VARCHAR(200)  NOT NULL,
    CONSTRAINT outbox_rules_pk PRIMARY KEY (outbox)
);
