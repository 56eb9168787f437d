package dev.outboxer.quarkus;

import dev.outboxer.cdi.internal.cdi.DeploymentCheck;
import dev.outboxer.cdi.internal.config.OutboxConfiguration;
import dev.outboxer.cdi.internal.work.OutboxRuntime;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.interceptor.Interceptor;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Starts and stops Outboxer with the Quarkus application, where a CDI container would use Outboxer's
 * portable extension and its application-scope observers: at start, before the application's own
 * {@link StartupEvent} observers, it runs the core's {@link DeploymentCheck} (every problem of the
 * {@code outbox.*} configuration, the relays, the {@code @Outboxed} types and the persistence, in
 * one failure that fails the start) and then the core's {@link OutboxRuntime#start()} (database,
 * schema, rules, workers); at {@link ShutdownEvent} it stops the workers, before the data sources
 * close. It also produces the validated {@link OutboxConfiguration} for the core's beans.
 *
 * <p>Not guaranteed: problems only the database can reveal are found by the core's start, as in any
 * container (a database that does not answer does not fail the start; Outboxer waits for it).
 */
@Singleton
public class OutboxerStart {

  @Inject OutboxedTypes outboxedTypes;
  @Inject BeanManager beans;
  @Inject OutboxRuntime runtime;

  private volatile DeploymentCheck check;

  void onStart(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) StartupEvent event) throws Exception {
    passedCheck();
    runtime.start();
  }

  void onStop(@Observes ShutdownEvent event) {
    runtime.stop();
  }

  @Produces
  @Singleton
  OutboxConfiguration configuration() {
    return passedCheck().configuration().orElseThrow();
  }

  /** The check, run once: at start, or earlier if a bean needs the configuration first; its problems as one failure. */
  private DeploymentCheck passedCheck() {
    DeploymentCheck checked = check;
    if (checked == null) {
      synchronized (this) {
        checked = check;
        if (checked == null) {
          checked = DeploymentCheck.run(beans, outboxedTypes.classes(), ConfigProvider.getConfig());
          check = checked;
        }
      }
    }
    if (checked.failure().isPresent()) {
      throw checked.failure().get();
    }
    return checked;
  }
}
