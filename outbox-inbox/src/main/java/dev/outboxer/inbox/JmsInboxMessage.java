package dev.outboxer.inbox;

import jakarta.jms.JMSException;
import jakarta.jms.Message;

/**
 * Reads the outbox, group key and id from a JMS message sent by Outboxer's JMS relay. Needs {@code
 * jakarta.jms-api} on the class path (a JMS consumer has it); nothing else of the inbox does.
 *
 * <pre>{@code
 * public void onMessage(Message message) {      // an MDB, container-managed transaction
 *     if (inbox.accept(JmsInboxMessage.from(message))) {
 *         process(message);
 *     }
 * }
 * }</pre>
 */
public final class JmsInboxMessage {

  // The JMS spellings of StandardHeaders.ID, GROUP_KEY and OUTBOX (camel case, as JMS property names
  // must be Java identifiers), as outbox-jms-relay's JmsMessageProperties sends them. Repeated here
  // so that a consumer needs no relay jar; JmsInboxMessageTest checks that they are the relay's.

  /** Long property: the message id. */
  public static final String OUTBOX_ID = "outboxId";

  /** String property: the group key; absent for a message without one. */
  public static final String OUTBOX_GROUP_KEY = "outboxGroupKey";

  /** String property: the outbox name. */
  public static final String OUTBOX_NAME = "outboxName";

  private JmsInboxMessage() {}

  /**
   * @param message a message sent by the JMS relay
   * @return its outbox, group key and id
   * @throws InboxException if the message lacks {@value #OUTBOX_ID} or {@value #OUTBOX_NAME} (it
   *     was not sent by an Outboxer relay) or they cannot be read
   */
  public static InboxMessage from(Message message) {
    try {
      if (!message.propertyExists(OUTBOX_ID) || !message.propertyExists(OUTBOX_NAME)) {
        throw new InboxException("JMS message " + message.getJMSMessageID() + " has no " + (message.propertyExists(
            OUTBOX_ID) ? OUTBOX_NAME : OUTBOX_ID) + " property: it was not sent by Outboxer's JMS relay, and the"
            + " inbox cannot tell whether it is a duplicate");
      }
      String groupKey = message.propertyExists(OUTBOX_GROUP_KEY) ? message.getStringProperty(OUTBOX_GROUP_KEY) : null;
      return new InboxMessage(message.getStringProperty(OUTBOX_NAME), groupKey, message.getLongProperty(OUTBOX_ID));
    } catch (JMSException | RuntimeException e) {
      if (e instanceof InboxException inboxException) {
        throw inboxException;
      }
      throw new InboxException("The outbox properties of a JMS message could not be read: " + e.getMessage(), e);
    }
  }
}
