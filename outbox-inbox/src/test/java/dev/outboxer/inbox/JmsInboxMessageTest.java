package dev.outboxer.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.jms.JmsMessageProperties;
import org.junit.jupiter.api.Test;

/** The inbox's copies of the JMS property names are the ones the JMS relay sends. */
class JmsInboxMessageTest {

  @Test
  void readsThePropertiesTheJmsRelaySets() {
    assertThat(JmsInboxMessage.OUTBOX_ID).isEqualTo(JmsMessageProperties.OUTBOX_ID);
    assertThat(JmsInboxMessage.OUTBOX_GROUP_KEY).isEqualTo(JmsMessageProperties.OUTBOX_GROUP_KEY);
    assertThat(JmsInboxMessage.OUTBOX_NAME).isEqualTo(JmsMessageProperties.OUTBOX_NAME);
  }
}
