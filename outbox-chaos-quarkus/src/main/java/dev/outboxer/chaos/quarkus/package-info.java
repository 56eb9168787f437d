/**
 * The chaos suite's worker as a Quarkus application (JVM mode): started by the orchestrator of
 * outbox-chaos for {@code worker=quarkus} as {@code java -jar target/quarkus-app/quarkus-run.jar}.
 */
package dev.outboxer.chaos.quarkus;
