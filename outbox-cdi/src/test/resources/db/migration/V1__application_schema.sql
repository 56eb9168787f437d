-- An application's own first migration, at Flyway's default location: SchemaFormsContractTest proves that
-- Outboxer's migrations in outbox-cdi.jar neither collide with it nor are picked up by this Flyway.
CREATE TABLE application_order (id BIGINT NOT NULL PRIMARY KEY, description VARCHAR(200) NOT NULL);
