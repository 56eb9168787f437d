package dev.outboxer.local;

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
 * Selects the outbox (and optionally the message type) an {@link OutboxHandler} or {@link
 * OutboxMessageHandler} bean handles, for outboxes configured with {@code
 * outbox.<name>.relay=local}. A CDI qualifier, so that it also works on producer methods.
 *
 * <pre>{@code
 * @ApplicationScoped @HandlesOutbox("orders")                        // every type of "orders"
 * public class OrderLog implements OutboxHandler { ... }
 *
 * @ApplicationScoped @HandlesOutbox(value = "orders", type = "OrderCancelled")
 * public class Refunds implements OutboxHandler { ... }               // one type, raw records
 * }</pre>
 *
 * <p>Per outbox, a message goes to the handler of its type if there is one, else to the outbox's
 * handler for every type. Two handlers for the same outbox and type (or two for every type) fail
 * the deployment, as does an outbox without any handler.
 */
@Qualifier
@Documented
@Retention(RUNTIME)
@Target({TYPE, METHOD, FIELD, PARAMETER})
public @interface HandlesOutbox {

  /**
   * The outbox name, as in {@code outbox.<name>.relay=local}. Required for an {@link
   * OutboxHandler}; for an {@link OutboxMessageHandler} empty (the default) means the outbox of
   * the message class's {@link dev.outboxer.Outboxed @Outboxed}.
   *
   * @return the outbox name
   */
  String value() default "";

  /**
   * The stored message type ({@link dev.outboxer.spi.OutboxRecord#type()}) this handler takes. For
   * an {@link OutboxHandler} empty (the default) means every type without a handler of its own;
   * for an {@link OutboxMessageHandler} empty means the message class's type name.
   *
   * @return the message type name
   */
  String type() default "";
}
