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
 *
 * <p>Where no portable extension runs (Quarkus' ArC), the platform's build answers the same
 * question from its own view of the injection points and offers the answer as a bean of this type,
 * made by {@link #noted(boolean)}: Outboxer's Quarkus extension does.
 */
public class InboxUsage implements Extension {

  private volatile boolean injected;

  /** For {@link java.util.ServiceLoader}: the portable extension, which notes the injection points as they are processed. */
  public InboxUsage() {}

  /**
   * The answer of a platform that runs no portable extension and found the injection points itself.
   *
   * @param injected whether any bean of the application injects the inbox (directly, or as an
   *     {@code Instance} or {@code Provider} of it)
   * @return the usage, for a bean of this type
   */
  public static InboxUsage noted(boolean injected) {
    InboxUsage usage = new InboxUsage();
    usage.injected = injected;
    return usage;
  }

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
