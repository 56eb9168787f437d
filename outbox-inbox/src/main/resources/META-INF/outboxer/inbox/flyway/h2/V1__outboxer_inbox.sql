-- Outboxer inbox schema for H2 2.x (version 1): the consumer side, in the consumer's database. Run it once before
-- the consumer starts, apply it as a Flyway migration (this file) or include the Liquibase changelog
-- META-INF/outboxer/inbox/liquibase/h2.xml.

-- The last accepted id per group of an outbox. UTC times; a row per group until Inbox.purge removes it.
-- H2 counts a VARCHAR's length in UTF-16 units, where a character outside the Basic Multilingual Plane (an emoji)
-- takes two. The outbox allows group keys of 255 characters (code points): hence 510 here, as in the outbox's schema.
CREATE TABLE outbox_inbox (
    outbox          VARCHAR(100)  NOT NULL,
    group_key       VARCHAR(510)  NOT NULL,
    last_id         BIGINT        NOT NULL,
    processed_at    TIMESTAMP(6)  NOT NULL,
    CONSTRAINT outbox_inbox_pk PRIMARY KEY (outbox, group_key)
);
CREATE INDEX outbox_inbox_processed_idx ON outbox_inbox (processed_at);

-- Every accepted id of messages deduplicated by id (ungrouped ones, and outboxes configured so), until purged.
CREATE TABLE outbox_inbox_message (
    outbox          VARCHAR(100)  NOT NULL,
    message_id      BIGINT        NOT NULL,
    processed_at    TIMESTAMP(6)  NOT NULL,
    CONSTRAINT outbox_inbox_message_pk PRIMARY KEY (outbox, message_id)
);
CREATE INDEX outbox_inbox_message_processed_idx ON outbox_inbox_message (processed_at);
