package dev.outboxer.quarkus.deployment;

import dev.outboxer.spi.SqlScripts;
import dev.outboxer.testing.TestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/** The inbox tables on a test database, made from the script outbox-inbox.jar ships (its Flyway V1). */
final class InboxTables {

  private InboxTables() {}

  /** Drops the inbox tables (only those) and runs the shipped script. */
  static void reset(TestDatabase database) {
    drop(database);
    String resource = "META-INF/outboxer/inbox/flyway/" + database.configValue() + "/V1__outboxer_inbox.sql";
    try (InputStream in = Thread.currentThread().getContextClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is not on the class path");
      }
      database.execute(SqlScripts.statements(new String(in.readAllBytes(), StandardCharsets.UTF_8))
          .toArray(String[]::new));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static void drop(TestDatabase database) {
    database.execute("DROP TABLE IF EXISTS outbox_inbox", "DROP TABLE IF EXISTS outbox_inbox_message");
  }
}
