package dev.outboxer.cdi.internal;

import java.lang.reflect.Proxy;
import java.util.Hashtable;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.naming.Context;
import javax.naming.NoInitialContextException;
import javax.naming.OperationNotSupportedException;
import javax.naming.spi.InitialContextFactory;

/**
 * A minimal JNDI for Java SE tests: what an application server binds (a
 * ManagedScheduledExecutorService, say) bound by the test. {@link #install()} makes it the default
 * initial context of the JVM until the returned handle is closed; only {@code lookup} works.
 */
public final class TestNaming implements InitialContextFactory {

  private static final Map<String, Object> BINDINGS = new ConcurrentHashMap<>();

  /** JNDI instantiates the factory itself. */
  public TestNaming() {}

  public static void bind(String name, Object value) {
    BINDINGS.put(name, value);
  }

  /** Makes new InitialContexts of this JVM ours; close the handle to restore the previous setting. */
  public static AutoCloseable install() {
    String previous = System.getProperty(Context.INITIAL_CONTEXT_FACTORY);
    System.setProperty(Context.INITIAL_CONTEXT_FACTORY, TestNaming.class.getName());
    return () -> {
      if (previous == null) {
        System.clearProperty(Context.INITIAL_CONTEXT_FACTORY);
      } else {
        System.setProperty(Context.INITIAL_CONTEXT_FACTORY, previous);
      }
      BINDINGS.clear();
    };
  }

  @Override
  public Context getInitialContext(Hashtable<?, ?> environment) {
    return (Context) Proxy.newProxyInstance(TestNaming.class.getClassLoader(), new Class<?>[] {Context.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "lookup" -> {
            Object value = BINDINGS.get(String.valueOf(args[0]));
            if (value == null) {
              // Anything else behaves as in Java SE without JNDI: libraries that probe JNDI
              // (Narayana's CDI beans) then fall back to their defaults, as they would without us.
              throw new NoInitialContextException(args[0] + " is not bound in the test's JNDI");
            }
            yield value;
          }
          case "close" -> null;
          case "hashCode" -> System.identityHashCode(proxy);
          case "equals" -> proxy == args[0];
          case "toString" -> "TestNaming" + BINDINGS.keySet();
          default -> throw new OperationNotSupportedException(method.getName() + " is not supported by the test's JNDI");
        });
  }
}
