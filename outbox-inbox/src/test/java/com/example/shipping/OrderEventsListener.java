package com.example.shipping;

import dev.outboxer.inbox.Inbox;
import dev.outboxer.inbox.JmsInboxMessage;
import jakarta.ejb.ActivationConfigProperty;
import jakarta.ejb.MessageDriven;
import jakarta.inject.Inject;
import jakarta.jms.JMSException;
import jakarta.jms.Message;
import jakarta.jms.MessageListener;

@MessageDriven(activationConfig = {
    @ActivationConfigProperty(propertyName = "destinationLookup", propertyValue = "jms/orders"),
    @ActivationConfigProperty(propertyName = "destinationType", propertyValue = "jakarta.jms.Queue")})
public class OrderEventsListener implements MessageListener {

  @Inject Inbox inbox;
  @Inject Shipping shipping;

  @Override
  public void onMessage(Message message) {
    // Same transaction as the processing: both commit, or both roll back and the broker redelivers.
    if (!inbox.accept(JmsInboxMessage.from(message))) {
      return; // processed before (a redelivered batch, a stale copy): skip it
    }
    try {
      shipping.orderPaid(message.getBody(String.class));
    } catch (JMSException e) {
      throw new IllegalStateException(e); // rolls back the accept too
    }
  }
}
