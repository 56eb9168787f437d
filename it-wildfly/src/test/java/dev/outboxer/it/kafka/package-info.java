/**
 * The Kafka relay on WildFly: a small application of its own (not the JMS sample) that publishes
 * {@link dev.outboxer.it.kafka.KafkaEvent}s through the outbox {@code events} ({@code relay=kafka})
 * from a {@code @Transactional} bean behind a REST resource, and the client-side test that drives it
 * over HTTP and reads the topic of a Kafka broker running in the test JVM.
 */
package dev.outboxer.it.kafka;
