package dev.outboxer.health;

import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The workers' executor, offered as the CDI bean the core looks for before JNDI: a real scheduled
 * thread pool that, while {@linkplain #pause() paused}, refuses every new {@code schedule} call,
 * as a managed executor does when it is overloaded or being reconfigured. Runs scheduled before
 * the pause still happen; each worker's chain of runs then breaks at its next scheduling, and the
 * core's supervisor keeps trying to schedule it again.
 */
public class PausableScheduler {

  private static final AtomicInteger THREADS = new AtomicInteger();
  private static final ScheduledThreadPoolExecutor POOL = new ScheduledThreadPoolExecutor(4, runnable -> {
    Thread thread = new Thread(runnable, "test-worker-" + THREADS.incrementAndGet());
    thread.setDaemon(true);
    return thread;
  });
  private static volatile boolean paused;

  static void pause() {
    paused = true;
  }

  static void resume() {
    paused = false;
  }

  @Produces
  @Singleton
  ManagedScheduledExecutorService executor() {
    return (ManagedScheduledExecutorService) Proxy.newProxyInstance(PausableScheduler.class.getClassLoader(),
        new Class<?>[] {ManagedScheduledExecutorService.class}, (proxy, method, args) -> {
          if (method.getDeclaringClass() == Object.class) {
            return switch (method.getName()) {
              case "equals" -> proxy == args[0];
              case "hashCode" -> System.identityHashCode(proxy);
              default -> "PausableScheduler";
            };
          }
          if (paused && method.getName().equals("schedule")) {
            throw new RejectedExecutionException("the test's executor is paused");
          }
          return invoke(method, args);
        });
  }

  private static Object invoke(Method method, Object[] args) throws Throwable {
    Method target;
    try {
      target = ScheduledExecutorService.class.getMethod(method.getName(), method.getParameterTypes());
    } catch (NoSuchMethodException managedOnly) {
      throw new UnsupportedOperationException(method + " is not offered by the test's executor");
    }
    try {
      return target.invoke(POOL, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
