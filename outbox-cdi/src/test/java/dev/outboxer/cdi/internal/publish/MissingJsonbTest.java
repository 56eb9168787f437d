package dev.outboxer.cdi.internal.publish;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.OutboxConfigurationException;
import jakarta.enterprise.inject.Instance;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Collections;
import java.util.Enumeration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Without a JSON-B implementation (or without even the JSON-B API) and without a PayloadCodec bean
 * of the application's, {@link Codecs#payloadCodec()}, which runs at start-up, fails with the
 * message naming the fix. The JSON-B provider (Yasson) is on this module's test class path, so the
 * test loads the codec classes and the JSON-B API in a class loader of its own that hides what a
 * server without the JSON-B feature would not have.
 */
class MissingJsonbTest {

  private static final String PROVIDER_SERVICE = "META-INF/services/jakarta.json.bind.spi.JsonbProvider";

  @Test
  void without_a_json_b_provider_the_payload_codec_fails_naming_the_fix() throws Exception {
    OutboxConfigurationException missing = payloadCodecFailure(new HidingClassLoader(false));
    assertThat(missing.getMessage()).contains(JsonbPayloadCodec.MISSING_JSONB)
        .contains("<feature>jsonb-3.0</feature>", "org.eclipse:yasson", "dev.outboxer.spi.PayloadCodec bean")
        // The JSON-B API's own words on what it looked for.
        .contains("org.eclipse.yasson.JsonBindingProvider");
  }

  @Test
  void without_even_the_json_b_api_the_payload_codec_fails_naming_the_fix() throws Exception {
    OutboxConfigurationException missing = payloadCodecFailure(new HidingClassLoader(true));
    assertThat(missing.getMessage()).contains(JsonbPayloadCodec.MISSING_JSONB).contains("jakarta/json/bind");
  }

  /** Codecs.payloadCodec() of a Codecs loaded in the loader, with no application codec, on a thread seeing that loader. */
  private static OutboxConfigurationException payloadCodecFailure(HidingClassLoader loader) throws Exception {
    Class<?> codecsClass = loader.loadClass(Codecs.class.getName());
    assertThat(codecsClass.getClassLoader()).isSameAs(loader);
    Object codecs = codecsClass.getConstructor().newInstance();
    // Another class loader makes another runtime package: package access needs reflection's override.
    java.lang.reflect.Field applicationCodecs = codecsClass.getDeclaredField("applicationCodecs");
    applicationCodecs.setAccessible(true);
    applicationCodecs.set(codecs, noApplicationCodec());
    Method payloadCodec = codecsClass.getMethod("payloadCodec");
    Thread thread = Thread.currentThread();
    ClassLoader previous = thread.getContextClassLoader();
    thread.setContextClassLoader(loader);
    try {
      Object codec = payloadCodec.invoke(codecs);
      throw new AssertionError("A payload codec was found although JSON-B is hidden: " + codec);
    } catch (InvocationTargetException failed) {
      assertThat(failed.getCause()).isInstanceOf(OutboxConfigurationException.class);
      return (OutboxConfigurationException) failed.getCause();
    } finally {
      thread.setContextClassLoader(previous);
    }
  }

  @SuppressWarnings("unchecked")
  private static Instance<Object> noApplicationCodec() {
    return (Instance<Object>) Proxy.newProxyInstance(Instance.class.getClassLoader(), new Class<?>[] {Instance.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "isResolvable" -> false;
          case "toString" -> "no PayloadCodec bean";
          default -> throw new UnsupportedOperationException(method.getName());
        });
  }

  /**
   * Loads the codec classes (and the JSON-B API, unless it hides that too) itself, from the same
   * class path, so that their lookups of JSON-B go through it; refuses Yasson and the JSON-B
   * provider service file; leaves everything else to the test's own class loader.
   */
  private static final class HidingClassLoader extends URLClassLoader {
    private static final Set<String> OWN_CLASSES = Set.of(Codecs.class.getName(), JsonbPayloadCodec.class.getName());
    private final boolean hideApi;

    HidingClassLoader(boolean hideApi) {
      super(new URL[] {location(Codecs.class), location(jakarta.json.bind.JsonbBuilder.class)},
          MissingJsonbTest.class.getClassLoader());
      this.hideApi = hideApi;
    }

    private static URL location(Class<?> type) {
      return type.getProtectionDomain().getCodeSource().getLocation();
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      synchronized (getClassLoadingLock(name)) {
        if (name.startsWith("org.eclipse.yasson.") || hideApi && name.startsWith("jakarta.json.bind.")) {
          throw new ClassNotFoundException(name + " (hidden by the test)");
        }
        if (OWN_CLASSES.contains(name) || name.startsWith("jakarta.json.bind.")) {
          Class<?> loaded = findLoadedClass(name);
          return loaded != null ? loaded : findClass(name);
        }
        return super.loadClass(name, resolve);
      }
    }

    @Override
    public URL getResource(String name) {
      return name.equals(PROVIDER_SERVICE) ? null : super.getResource(name);
    }

    @Override
    public Enumeration<URL> getResources(String name) throws IOException {
      return name.equals(PROVIDER_SERVICE) ? Collections.emptyEnumeration() : super.getResources(name);
    }
  }
}
