package dev.outboxer.inbox;

import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessInjectionPoint;
import jakarta.inject.Provider;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;

/**
 * Notes whether the application injects the {@link Inbox} (directly, or as an {@code Instance} or
 * {@code Provider} of it), so that {@link InboxProducer} checks the inbox's configuration and
 * tables when the application starts only in applications that use it: an application that has
 * {@code outbox-inbox} on its class path only because it publishes is not asked for an inbox data
 * source. Public only because {@link java.util.ServiceLoader} needs it; not API.
 */
public class InboxUsage implements Extension {

  private volatile boolean injected;

  void injectionPoint(@Observes ProcessInjectionPoint<?, ?> point) {
    if (isInbox(point.getInjectionPoint().getType())) {
      injected = true;
    }
  }

  /** Whether any bean of the application injects the inbox. */
  boolean injected() {
    return injected;
  }

  private static boolean isInbox(Type type) {
    if (type == Inbox.class) {
      return true;
    }
    return type instanceof ParameterizedType parameterized
        && (parameterized.getRawType() == Instance.class || parameterized.getRawType() == Provider.class)
        && parameterized.getActualTypeArguments()[0] == Inbox.class;
  }
}
