package dev.outboxer;

import static java.lang.annotation.ElementType.FIELD;
import static java.lang.annotation.ElementType.METHOD;
import static java.lang.annotation.ElementType.PARAMETER;
import static java.lang.annotation.ElementType.TYPE;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import jakarta.inject.Qualifier;
import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;

/**
 * Marks where Outboxer writes its rows, so that they commit with the business data: the JTA {@code
 * DataSource} that holds it, or the {@code EntityManager} of the persistence unit that does. The
 * application produces one of them once:
 *
 * <pre>{@code
 * @ApplicationScoped
 * public class OutboxPersistenceProducer {
 *     @Produces @OutboxPersistence
 *     @Resource(lookup = "jdbc/orders")       // the data source of the orders
 *     DataSource dataSource;
 * }
 * }</pre>
 *
 * <p>or, for an application that works through JPA:
 *
 * <pre>{@code
 *     @Produces @OutboxPersistence
 *     @PersistenceContext(unitName = "orders")
 *     EntityManager entityManager;
 * }</pre>
 *
 * <p>The data source must be a JTA one (its connections join the caller's transaction: the default
 * for {@code <dataSource>} on Open Liberty and a non-{@code jta="false"} data source on WildFly); the
 * EntityManager must be transaction-scoped (a container-managed persistence context, or a {@code
 * @TransactionScoped} one in Java SE). A data source is the shorter path: Outboxer then opens no
 * persistence context of its own. Instead of a producer, {@code outbox.datasource=jdbc/orders}
 * names the data source by its JNDI name. Without any of these, Outboxer uses the application's
 * {@code @Default} EntityManager if there is exactly one.
 */
@Qualifier
@Documented
@Retention(RUNTIME)
@Target({TYPE, METHOD, FIELD, PARAMETER})
public @interface OutboxPersistence {}
