package dev.outboxer.quarkus;

import java.util.ArrayList;
import java.util.List;

/**
 * The application's classes annotated {@code @Outboxed}, as the build found them in the index, so
 * that the start-time check can tell an {@code @Outboxed("orders")} without an outbox {@code orders}.
 * Guarantee: every class of the application and its indexed libraries that carries the annotation
 * (ArC has no {@code ProcessAnnotatedType} to collect them at run time). Not guaranteed: classes that
 * are not in the index (a library jar without a bean archive marker or Jandex index).
 */
public final class OutboxedTypes {

  private final List<String> classNames;

  /** The types by class name, loaded on first use. */
  public OutboxedTypes(List<String> classNames) {
    this.classNames = List.copyOf(classNames);
  }

  /** The classes, loaded through the application's class loader. */
  public List<Class<?>> classes() {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    List<Class<?>> classes = new ArrayList<>(classNames.size());
    for (String name : classNames) {
      try {
        classes.add(Class.forName(name, false, loader != null ? loader : OutboxedTypes.class.getClassLoader()));
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException("The @Outboxed class " + name + " found at build time cannot be loaded", e);
      }
    }
    return classes;
  }
}
