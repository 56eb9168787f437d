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
   *     was not sent by an Outboxer relay) or they cannot be read, or, naming the property and its
   *     value, if a property holds what the relay never sends: an id that is not positive, an outbox
   *     name or group key the outbox refuses (see {@link InboxMessage}: an empty or blank group key
   *     among them)
   */
  public static InboxMessage from(Message message) {
    try {
      if (!message.propertyExists(OUTBOX_ID) || !message.propertyExists(OUTBOX_NAME)) {
        throw new InboxException("JMS message " + message.getJMSMessageID() + " has no " + (message.propertyExists(
            OUTBOX_ID) ? OUTBOX_NAME : OUTBOX_ID) + " property: it was not sent by Outboxer's JMS relay, and the"
            + " inbox cannot tell whether it is a duplicate");
      }
      String groupKey = message.propertyExists(OUTBOX_GROUP_KEY) ? message.getStringProperty(OUTBOX_GROUP_KEY) : null;
      String outbox = message.getStringProperty(OUTBOX_NAME);
      long id = message.getLongProperty(OUTBOX_ID);
      String where = "JMS message " + message.getJMSMessageID();
      refuse(where, OUTBOX_ID, Long.toString(id), InboxMessage.idProblem(id));
      refuse(where, OUTBOX_NAME, outbox, outbox == null ? "has no value" : InboxMessage.outboxProblem(outbox));
      refuse(where, OUTBOX_GROUP_KEY, groupKey, InboxMessage.groupKeyProblem(groupKey));
      return new InboxMessage(outbox, groupKey, id);
    } catch (JMSException | RuntimeException e) {
      if (e instanceof InboxException inboxException) {
        throw inboxException;
      }
      throw new InboxException("The outbox properties of a JMS message could not be read: " + e.getMessage(), e);
    }
  }

  private static void refuse(String where, String property, String value, String problem) {
    if (problem != null) {
      throw new InboxException(where + " has the " + property + " property '" + InboxMessage.printable(value)
          + "', which " + problem + ": it was not sent by Outboxer's JMS relay, and the inbox cannot tell whether"
          + " it is a duplicate");
    }
  }
}
