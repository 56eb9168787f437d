package dev.outboxer.quarkus;

import dev.outboxer.spi.PlatformExecutor;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Offers Quarkus' managed executor (the {@code ScheduledExecutorService} bean over Quarkus' worker
 * pool, which the application cannot shut down) to Outboxer's workers as their {@link
 * PlatformExecutor}. Its threads are Quarkus' worker threads: {@code quarkus.thread-pool.*} sizes
 * them, and Outboxer's workers share them with the application's blocking work.
 */
@Singleton
public class QuarkusExecutor {

  @Produces
  @PlatformExecutor
  @Singleton
  ScheduledExecutorService workerExecutor(ScheduledExecutorService quarkusExecutor) {
    return quarkusExecutor;
  }
}
