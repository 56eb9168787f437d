/**
 * Outboxer's implementation. Nothing in this package or its sub-packages is API: applications use
 * {@code dev.outboxer} and {@code dev.outboxer.spi} only. Classes are public here only where CDI,
 * JPA or EJB require it; their names, signatures and behaviour may change in any release.
 */
package dev.outboxer.cdi.internal;
