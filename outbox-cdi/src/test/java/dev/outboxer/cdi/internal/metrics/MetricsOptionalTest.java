package dev.outboxer.cdi.internal.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.outboxer.OutboxCounts;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * MicroProfile Metrics is optional: a server without it (Open Liberty without {@code mpMetrics})
 * must deploy Outboxer, not fail with an unsatisfied dependency on {@code OutboxMetrics} because the
 * class cannot be loaded. Proved by loading the metrics classes where the MicroProfile Metrics API
 * does not exist.
 */
class MetricsOptionalTest {

  @Test
  void outboxMetricsLoadsAndDoesNothingWhereTheMicroProfileMetricsApiIsMissing() throws Exception {
    ClassLoader withoutMetrics = new WithoutMicroProfileMetrics(getClass().getClassLoader());
    assertThatCode(() -> withoutMetrics.loadClass(OutboxMetrics.REGISTRY_CLASS))
        .as("the test's class loader hides the API").isInstanceOf(ClassNotFoundException.class);

    Class<?> metricsClass = withoutMetrics.loadClass(OutboxMetrics.class.getName());
    // What a CDI container does when it discovers the bean: read its members, make an instance.
    metricsClass.getDeclaredFields();
    metricsClass.getDeclaredMethods();
    Object metrics = metricsClass.getDeclaredConstructor().newInstance();

    Method published = metricsClass.getMethod("published", String.class, int.class);
    Method batch = metricsClass.getMethod("batch", String.class, int.class, int.class, int.class,
        Duration.class, boolean.class);
    Method gauges = metricsClass.getMethod("registerGauges", String.class, Supplier.class, Supplier.class);
    Method unregister = metricsClass.getMethod("unregister");
    Supplier<OutboxCounts> counts = () -> {
      throw new AssertionError("no gauge may read the counts without a registry");
    };
    assertThatCode(() -> {
      published.invoke(metrics, "orders", 3);
      batch.invoke(metrics, "orders", 2, 1, 0, Duration.ofMillis(5), true);
      gauges.invoke(metrics, "orders", counts, (Supplier<Duration>) () -> {
        throw new AssertionError("no gauge may read the transaction age without a registry");
      });
      unregister.invoke(metrics);
    }).doesNotThrowAnyException();
  }

  @Test
  void withTheApiButNoRegistryBeanTheMetricsAreOff() {
    assertThat(OutboxMetrics.find(null, getClass().getClassLoader())).isSameAs(MetricsSink.NONE);
  }

  /**
   * Loads Outboxer's metrics classes itself (so that their links resolve here) and refuses the
   * MicroProfile Metrics API; everything else comes from the parent.
   */
  private static final class WithoutMicroProfileMetrics extends ClassLoader {

    WithoutMicroProfileMetrics(ClassLoader parent) {
      super(parent);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      synchronized (getClassLoadingLock(name)) {
        if (name.startsWith("org.eclipse.microprofile.metrics.")) {
          throw new ClassNotFoundException(name + " (hidden by the test)");
        }
        if (name.startsWith("dev.outboxer.cdi.internal.metrics.") && !name.endsWith("Test")) {
          Class<?> loaded = findLoadedClass(name);
          if (loaded == null) {
            loaded = defineOwn(name);
          }
          return loaded;
        }
        return super.loadClass(name, resolve);
      }
    }

    private Class<?> defineOwn(String name) throws ClassNotFoundException {
      try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
        if (in == null) {
          throw new ClassNotFoundException(name);
        }
        byte[] bytes = in.readAllBytes();
        return defineClass(name, bytes, 0, bytes.length);
      } catch (IOException e) {
        throw new ClassNotFoundException(name, e);
      }
    }
  }
}
