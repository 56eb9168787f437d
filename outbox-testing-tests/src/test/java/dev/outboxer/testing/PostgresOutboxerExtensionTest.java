package dev.outboxer.testing;

import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link OutboxerExtension} on PostgreSQL, in the tests' own database (its URL and credentials come
 * from {@link TestDatabase}, which creates that database; the extension itself knows only the URL).
 */
class PostgresOutboxerExtensionTest extends OutboxerExtensionContractTest {

  @RegisterExtension
  static OutboxerExtension outboxer = outboxes(OutboxerExtension.builder()
      .jdbcUrl(Databases.postgresUrl(), TestDatabase.POSTGRESQL.user(), TestDatabase.POSTGRESQL.password())).build();

  @Override
  OutboxerExtension extension() {
    return outboxer;
  }
}
