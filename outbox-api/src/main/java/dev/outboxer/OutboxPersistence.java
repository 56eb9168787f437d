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
 * Marks the {@code EntityManager} Outboxer writes and reads its tables with. The application
 * produces it once, from the persistence unit that holds its business entities, so that messages
 * commit with them:
 *
 * <pre>{@code
 * @ApplicationScoped
 * public class OutboxPersistenceProducer {
 *     @Produces @OutboxPersistence
 *     @PersistenceContext(unitName = "orders")
 *     EntityManager em;
 * }
 * }</pre>
 *
 * <p>The EntityManager must be transaction-scoped and join JTA transactions (a container-managed
 * persistence context, or a {@code @TransactionScoped} one in Java SE). If no {@code
 * EntityManager} carries this qualifier, Outboxer uses the application's {@code @Default} one, if
 * there is exactly one.
 */
@Qualifier
@Documented
@Retention(RUNTIME)
@Target({TYPE, METHOD, FIELD, PARAMETER})
public @interface OutboxPersistence {}
