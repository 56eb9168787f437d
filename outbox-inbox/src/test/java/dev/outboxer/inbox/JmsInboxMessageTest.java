package dev.outboxer.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.jms.JmsMessageProperties;
import jakarta.jms.Message;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The inbox's copies of the JMS property names are the ones the JMS relay sends; what it reads from them. */
class JmsInboxMessageTest {

  @Test
  void readsThePropertiesTheJmsRelaySets() {
    assertThat(JmsInboxMessage.OUTBOX_ID).isEqualTo(JmsMessageProperties.OUTBOX_ID);
    assertThat(JmsInboxMessage.OUTBOX_GROUP_KEY).isEqualTo(JmsMessageProperties.OUTBOX_GROUP_KEY);
    assertThat(JmsInboxMessage.OUTBOX_NAME).isEqualTo(JmsMessageProperties.OUTBOX_NAME);
  }

  @Test
  void readsOutboxGroupKeyAndIdFromTheProperties() {
    assertThat(JmsInboxMessage.from(message(42L, "orders", "order:7"))).isEqualTo(new InboxMessage("orders", "order:7", 42));
    assertThat(JmsInboxMessage.from(message(42L, "orders", null)).groupKey()).isNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "order\u0000", "\uD83D"})
  void aGroupKeyPropertyTheOutboxWouldRefuseIsRefusedNamingTheProperty(String groupKey) {
    assertThatThrownBy(() -> JmsInboxMessage.from(message(42L, "orders", groupKey)))
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("JMS message ID:1 has the outboxGroupKey property '");
  }

  @Test
  void aNonPositiveIdOrABadOutboxNameIsRefusedNamingTheProperty() {
    assertThatThrownBy(() -> JmsInboxMessage.from(message(0L, "orders", "g")))
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("has the outboxId property '0', which must be positive");
    assertThatThrownBy(() -> JmsInboxMessage.from(message(42L, "or ders", "g")))
        .isInstanceOf(InboxException.class)
        .hasMessageContaining("has the outboxName property 'or ders'");
  }

  /** A message with only the properties: the three the relay sets, a null value for "not set". */
  private static Message message(Long id, String outbox, String groupKey) {
    Map<String, Object> properties = new HashMap<>();
    properties.put(JmsInboxMessage.OUTBOX_ID, id);
    properties.put(JmsInboxMessage.OUTBOX_NAME, outbox);
    if (groupKey != null) {
      properties.put(JmsInboxMessage.OUTBOX_GROUP_KEY, groupKey);
    }
    return (Message) Proxy.newProxyInstance(Message.class.getClassLoader(), new Class<?>[] {Message.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "propertyExists" -> properties.containsKey(args[0]);
          case "getStringProperty" -> (String) properties.get(args[0]);
          case "getLongProperty" -> (Long) properties.get(args[0]);
          case "getJMSMessageID" -> "ID:1";
          default -> throw new UnsupportedOperationException(method.getName());
        });
  }
}
