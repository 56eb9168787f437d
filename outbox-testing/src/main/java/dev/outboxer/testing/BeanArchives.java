package dev.outboxer.testing;

import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.context.NormalScope;
import jakarta.enterprise.inject.Stereotype;
import java.io.IOException;
import java.io.InputStream;
import java.lang.annotation.Annotation;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.security.CodeSource;
import java.util.Enumeration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whether a class is found by CDI bean discovery on its own: it lies in a bean archive (a class-path
 * root with {@code META-INF/beans.xml}) whose discovery mode takes it ({@code all}, or {@code
 * annotated}, the default since CDI 4, for a class with a bean-defining annotation). The test kit
 * adds a class given to {@code beans(...)} only if discovery does not, so that an application's
 * service listed there is not a second bean of the same type ({@code WELD-001335: Ambiguous
 * dependencies}).
 *
 * <p>Not guaranteed: {@code <scan><exclude>} filters of a beans.xml are not read (an excluded class
 * listed in {@code beans(...)} is then not added), nor Weld's own system properties that change
 * discovery.
 */
final class BeanArchives {

  private static final Pattern MODE = Pattern.compile("bean-discovery-mode\\s*=\\s*[\"'](\\w+)[\"']");

  private BeanArchives() {}

  /** @return whether bean discovery finds {@code type} without help */
  static boolean discovers(Class<?> type) {
    Optional<String> mode = discoveryMode(type);
    if (mode.isEmpty() || mode.get().equals("none")) {
      return false;
    }
    return mode.get().equals("all") || hasBeanDefiningAnnotation(type);
  }

  /** The discovery mode of the bean archive holding the class, if it lies in one. */
  private static Optional<String> discoveryMode(Class<?> type) {
    CodeSource source = type.getProtectionDomain() == null ? null : type.getProtectionDomain().getCodeSource();
    ClassLoader loader = type.getClassLoader();
    if (source == null || source.getLocation() == null || loader == null) {
      return Optional.empty();
    }
    String root = source.getLocation().toExternalForm();
    try {
      Enumeration<URL> descriptors = loader.getResources("META-INF/beans.xml");
      while (descriptors.hasMoreElements()) {
        URL descriptor = descriptors.nextElement();
        String form = descriptor.toExternalForm();
        // file:/x/classes/META-INF/beans.xml for a directory, jar:file:/x/a.jar!/META-INF/beans.xml for a jar.
        if (form.equals(root + "META-INF/beans.xml") || form.equals("jar:" + root + "!/META-INF/beans.xml")) {
          return Optional.of(mode(descriptor));
        }
      }
    } catch (IOException unreadable) {
      return Optional.empty();
    }
    return Optional.empty();
  }

  private static String mode(URL descriptor) throws IOException {
    try (InputStream in = descriptor.openStream()) {
      Matcher mode = MODE.matcher(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      // An empty beans.xml, or one without the attribute: annotated since CDI 4.0.
      return mode.find() ? mode.group(1) : "annotated";
    }
  }

  private static boolean hasBeanDefiningAnnotation(Class<?> type) {
    for (Annotation annotation : type.getAnnotations()) {
      Class<? extends Annotation> kind = annotation.annotationType();
      // CDI's bean-defining annotations: @Dependent, normal scopes, stereotypes, @Interceptor, @Decorator (not
      // pseudo-scopes such as @Singleton).
      if (kind == Dependent.class || kind.isAnnotationPresent(NormalScope.class)
          || kind.isAnnotationPresent(Stereotype.class)
          || kind.getName().equals("jakarta.interceptor.Interceptor")
          || kind.getName().equals("jakarta.decorator.Decorator")) {
        return true;
      }
    }
    return false;
  }
}
