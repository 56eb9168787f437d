/**
 * Throwaway smoke tests of the Open Liberty platform pieces the outbox relies on (XA across JPA and
 * the embedded JMS engine, EclipseLink and Hibernate on PostgreSQL, SKIP LOCKED, managed executors,
 * EJB timers, MicroProfile Config and Metrics from a WEB-INF/lib jar, deployment failures, EARs).
 *
 * <p>Each sub-package is one deployment built with ShrinkWrap; nothing here is part of the library.
 * Replace it with the real sample application ("orders") tests once the library is ready.
 */
package dev.outboxer.it.platform;
