package dev.outboxer.quarkus.deployment;

import dev.outboxer.testing.TestDatabase;
import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link InboxScenarios} in a Quarkus application on MariaDB. */
class QuarkusMariaDbInboxTest extends InboxScenarios {

  @RegisterExtension
  static final QuarkusUnitTest APP = application(TestDatabase.MARIADB, QuarkusMariaDbInboxTest.class);

  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }
}
