/**
 * Outboxer in a plain Java SE process.
 *
 * <h2>Rationale</h2>
 * Outboxer needs CDI, JTA and a JTA data source, which an application server provides. In Java SE
 * an application assembles them from parts that must fit together (Weld, Narayana, an XA-aware
 * pool, Hibernate, and a jboss-logging new enough for Narayana). This package does it, at the
 * versions Outboxer's own tests run on (its test kit is built on this package).
 *
 * <h2>How it works</h2>
 * {@link dev.outboxer.se.JavaSeContainer} sets Narayana's object store ({@link dev.outboxer.se.NarayanaStore}),
 * opens an Agroal pool over the driver's XA data source enlisted in Narayana ({@link
 * dev.outboxer.se.XaDataSources}), starts Hibernate on it for the application's entities ({@link
 * dev.outboxer.se.JtaPersistence}), registers the beans a server would provide ({@link
 * dev.outboxer.se.JavaSeBeans}) and starts Weld, which starts Outboxer. The building blocks are
 * public for a different assembly.
 *
 * <pre>{@code
 * try (JavaSeContainer container = JavaSeContainer.builder(url, user, password).entities(PurchaseOrder.class).start()) {
 *     container.inTransaction(() -> container.select(OrderService.class).place("ada", "book", 2));
 * }
 * }</pre>
 */
package dev.outboxer.se;
