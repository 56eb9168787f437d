/**
 * Outboxer in Quarkus (JVM mode): the run-time part of the extension. The core (outbox-cdi) runs in
 * ArC as it runs in any CDI container; this package does at run time what a portable extension and
 * application-scope observers do elsewhere: the start-time configuration check ({@link
 * dev.outboxer.quarkus.OutboxerStart}), the {@code @Outboxed} types found at build time ({@link
 * dev.outboxer.quarkus.OutboxedTypes}) and Quarkus' executor for the workers ({@link
 * dev.outboxer.quarkus.QuarkusExecutor}). The build steps are in outbox-quarkus-deployment.
 */
package dev.outboxer.quarkus;
