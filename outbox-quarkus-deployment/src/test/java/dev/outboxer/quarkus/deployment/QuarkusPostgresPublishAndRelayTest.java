package dev.outboxer.quarkus.deployment;

import dev.outboxer.testing.TestDatabase;
import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link PublishAndRelayScenarios} in a Quarkus application on PostgreSQL. */
class QuarkusPostgresPublishAndRelayTest extends PublishAndRelayScenarios {

  @RegisterExtension
  static final QuarkusUnitTest APP = application(TestDatabase.POSTGRESQL, QuarkusPostgresPublishAndRelayTest.class);

  @Override
  TestDatabase database() {
    return TestDatabase.POSTGRESQL;
  }
}
