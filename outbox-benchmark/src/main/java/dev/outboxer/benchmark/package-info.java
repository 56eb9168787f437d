/**
 * The side-by-side benchmark of Outboxer, a raw JDBC loop and gruelbox transaction-outbox. Not an
 * API and not published: everything here may change with the core it measures.
 *
 * <p>Start at {@link dev.outboxer.benchmark.Benchmark} (the program) and the module's README (what
 * each row measures). All SQL on Outboxer's tables is in {@code RawJdbc}.
 */
package dev.outboxer.benchmark;
