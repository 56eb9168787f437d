package dev.outboxer.spi;

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
 * Qualifies the {@code ScheduledExecutorService} bean that a platform integration offers where
 * there is no Jakarta Concurrency: Outboxer's Quarkus extension produces one over Quarkus' managed
 * worker pool. Who takes it: the core's partition workers, when no {@code
 * ManagedScheduledExecutorService} bean is there and {@code outbox.worker.executor} is not set, and
 * the inbox's retention ({@code outbox-inbox}), before it looks for the server's default managed
 * executor in JNDI. Guarantee: neither shuts it down; the platform owns it. Not for applications:
 * an application on a server configures {@code outbox.worker.executor} instead.
 */
@Qualifier
@Documented
@Retention(RUNTIME)
@Target({TYPE, METHOD, FIELD, PARAMETER})
public @interface PlatformExecutor {
}
