package dev.outboxer.cdi.internal.work;

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
 * Qualifies the {@code ScheduledExecutorService} that a platform integration offers for Outboxer's
 * workers where there is no Jakarta Concurrency (Quarkus offers its managed worker pool). {@link
 * Workers} takes it when no {@code ManagedScheduledExecutorService} bean is there and {@code
 * outbox.worker-executor} is not set. Outboxer never shuts it down: the platform owns it.
 */
@Qualifier
@Documented
@Retention(RUNTIME)
@Target({TYPE, METHOD, FIELD, PARAMETER})
public @interface PlatformExecutor {
}
