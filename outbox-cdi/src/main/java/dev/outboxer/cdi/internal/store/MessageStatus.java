package dev.outboxer.cdi.internal.store;

/** A stored message is either waiting to be relayed (possibly after failures) or dead. Relayed messages are deleted. */
public enum MessageStatus {
  PENDING,
  DEAD
}
