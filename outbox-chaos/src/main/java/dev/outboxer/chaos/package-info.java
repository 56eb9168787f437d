/**
 * The chaos suite: Outboxer's guarantees checked from outside, against kill -9, paused JVMs, ended
 * database sessions and failing or hanging relays. Not an API and not published; see the module's
 * README for the runs, how to start them and how to read the checker's table.
 *
 * <p>Processes: {@link dev.outboxer.chaos.WorkerMain} (an Outboxer node),
 * {@link dev.outboxer.chaos.PublisherMain} (publishes and writes the ledger),
 * {@link dev.outboxer.chaos.BrokerMain} (Artemis or Kafka) and {@link dev.outboxer.chaos.ChaosMain}
 * (the orchestrator of a long run). Relays: {@code TableRelay} (the suite's own), {@code
 * LocalHandler} (the handler behind {@code outbox-local-relay}), the JMS and Kafka relays read by
 * {@code BrokerConsumer} (optionally behind {@code outbox-inbox}). Everything that touches
 * Outboxer's own tables is in {@code OutboxerTables}; its configuration in {@code NodeConfig}.
 */
package dev.outboxer.chaos;
