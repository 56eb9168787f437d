/**
 * Test support for Outboxer's own modules: a Java SE container made of real parts (Weld, Narayana,
 * Agroal, Hibernate ORM, SmallRye Config and Metrics) on a real database, a settable clock and a
 * relay that records what it gets and fails on command. Not API, not published for applications.
 */
package dev.outboxer.testing;
