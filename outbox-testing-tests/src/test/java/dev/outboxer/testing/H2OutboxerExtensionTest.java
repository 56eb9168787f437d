package dev.outboxer.testing;

import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link OutboxerExtension} on an in-memory H2 database of the class's own. */
class H2OutboxerExtensionTest extends OutboxerExtensionContractTest {

  @RegisterExtension
  static OutboxerExtension outboxer = outboxes(OutboxerExtension.builder()
      .jdbcUrl("jdbc:h2:mem:testkit_contract;DB_CLOSE_DELAY=-1", "sa", "")).build();

  @Override
  OutboxerExtension extension() {
    return outboxer;
  }
}
