/**
 * The consumer examples of the README's inbox section, compiled with the tests so that they stay
 * true: a message-driven bean and a Kafka consumer loop in Java SE.
 */
package dev.outboxer.inbox.examples;
