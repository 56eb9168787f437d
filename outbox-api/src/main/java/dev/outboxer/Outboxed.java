package dev.outboxer;

import static java.lang.annotation.ElementType.TYPE;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;

/**
 * Names the outbox an {@link OutboxMessage} type is published to by {@link
 * Outbox#publish(OutboxMessage)}, and optionally its type name.
 *
 * <p>Outboxer checks at deployment that every {@code @Outboxed} type it discovers names a
 * configured outbox (one with {@code outbox.<name>.relay} set), and fails the deployment otherwise.
 * Types outside bean archives are checked on their first publish.
 */
@Documented
@Retention(RUNTIME)
@Target(TYPE)
public @interface Outboxed {

  /**
   * The name of the outbox, as used in the configuration keys {@code outbox.<name>.*}.
   *
   * @return the outbox name
   */
  String value();

  /**
   * The message type stored with each message and passed on by relays (JMS {@code JMSType}, the
   * Kafka {@code outbox-type} header). Consumers dispatch on it, so keep it stable when the class is
   * renamed or moved.
   *
   * @return the type name; empty (the default) means the class's simple name
   */
  String type() default "";
}
