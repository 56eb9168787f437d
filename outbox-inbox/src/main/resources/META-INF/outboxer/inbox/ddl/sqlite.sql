-- Outboxer inbox schema for SQLite 3.35+ (version 1), with the xerial sqlite-jdbc driver: the consumer side, in the
-- consumer's database. Run it once before the consumer starts. SQLite gets the plain script only, as Outboxer's
-- own schema (no Flyway or Liquibase form).
--
-- SQLite has one writer at a time: the first write of a consumer's transaction waits (busy_timeout) for the
-- transaction that writes now and holds the database until it ends, which serialises two consumers of a group.
-- Times are UTC, stored as ISO-8601 text as the driver writes a java.time.LocalDateTime (sorts in time order).
-- Group keys compare as exact bytes (SQLite's default BINARY collation).

-- The last accepted id per group of an outbox. A row per group until Inbox.purge removes it.
CREATE TABLE outbox_inbox (
    outbox          VARCHAR(100)  NOT NULL,
    group_key       VARCHAR(255)  NOT NULL,
    last_id         BIGINT        NOT NULL,
    processed_at    TIMESTAMP     NOT NULL,
    CONSTRAINT outbox_inbox_pk PRIMARY KEY (outbox, group_key)
);
CREATE INDEX outbox_inbox_processed_idx ON outbox_inbox (processed_at);

-- Every accepted id of messages deduplicated by id (ungrouped ones, and outboxes configured so), until purged.
CREATE TABLE outbox_inbox_message (
    outbox          VARCHAR(100)  NOT NULL,
    message_id      BIGINT        NOT NULL,
    processed_at    TIMESTAMP     NOT NULL,
    CONSTRAINT outbox_inbox_message_pk PRIMARY KEY (outbox, message_id)
);
CREATE INDEX outbox_inbox_message_processed_idx ON outbox_inbox_message (processed_at);
