/**
 * Outboxer's test kit.
 *
 * <h2>For applications (supported)</h2>
 * {@link dev.outboxer.testing.OutboxerExtension}, a JUnit 5 extension that runs Outboxer in the
 * test JVM on a database the test names; the {@link dev.outboxer.testing.RecordingRelay} it relays
 * to, which records what it is handed and fails on command; the {@link
 * dev.outboxer.testing.SettableClock} Outboxer reads time from; {@link dev.outboxer.testing.JdbcTarget}.
 * These keep their behaviour within a minor version, as {@code outbox-api} does.
 *
 * <pre>{@code
 * @RegisterExtension
 * static OutboxerExtension outboxer = OutboxerExtension.builder()
 *     .jdbcUrl("jdbc:h2:mem:orders;DB_CLOSE_DELAY=-1")
 *     .outbox("orders")
 *     .build();
 * }</pre>
 *
 * <h2>For Outboxer's own tests (internal)</h2>
 * {@link dev.outboxer.testing.OutboxTestContainer} (the Java SE container the extension runs; the
 * benchmark and the chaos suite start it directly), {@link dev.outboxer.testing.TestDatabase} (the
 * databases of Outboxer's build, reached through system properties), {@link
 * dev.outboxer.testing.OutboxTables}, {@link dev.outboxer.testing.TestRelayBatch}, {@link
 * dev.outboxer.testing.LogCapture}, {@link dev.outboxer.testing.OutboxMetricsProbe} and {@link
 * dev.outboxer.testing.TestOrder}: public for the other modules' tests, not API; they may change
 * in any version.
 */
package dev.outboxer.testing;
