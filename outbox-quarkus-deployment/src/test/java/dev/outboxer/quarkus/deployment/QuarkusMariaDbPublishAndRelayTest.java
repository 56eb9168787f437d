package dev.outboxer.quarkus.deployment;

import dev.outboxer.testing.TestDatabase;
import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link PublishAndRelayScenarios} in a Quarkus application on MariaDB. */
class QuarkusMariaDbPublishAndRelayTest extends PublishAndRelayScenarios {

  @RegisterExtension
  static final QuarkusUnitTest APP = application(TestDatabase.MARIADB, QuarkusMariaDbPublishAndRelayTest.class);

  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
