-- An application's own first migration, at Flyway's default location: InboxMigrationsTest proves that the
-- inbox's migrations in outbox-inbox.jar neither collide with it nor are picked up by this Flyway.
CREATE TABLE application_order (id BIGINT NOT NULL PRIMARY KEY, description VARCHAR(200) NOT NULL);
