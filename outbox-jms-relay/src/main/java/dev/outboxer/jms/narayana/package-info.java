/**
 * Java SE with Narayana: {@link dev.outboxer.jms.narayana.BrokerFirstTransactionHelper} makes the
 * JMS relay's XA session the branch that commits first, so that a node killed between the two
 * commits of a batch cannot let a group's next messages overtake the batch, and {@link
 * dev.outboxer.jms.narayana.BrokerFirstRecovery} makes Narayana's recovery keep that order for a node
 * killed before its commits were done. Needs Narayana on the class path (an optional dependency of
 * this module); nothing else in the relay does.
 */
package dev.outboxer.jms.narayana;
