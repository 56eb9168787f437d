package dev.outboxer.se;

import java.util.Map;
import java.util.Set;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * Defaults of the Java SE stack, below every other configuration source (ordinal {@value #ORDINAL}):
 * any key set in {@code microprofile-config.properties}, as a system property or as an environment
 * variable wins. Loaded by MicroProfile Config's service discovery.
 *
 * <p>{@code mp.metrics.prometheus.enabled=false}: SmallRye Metrics otherwise looks for a Micrometer
 * Prometheus registry, which the stack does not bring, and logs a SEVERE stack trace at start-up.
 */
public final class JavaSeConfigDefaults implements ConfigSource {

  /** Below the default sources (100 for microprofile-config.properties). */
  public static final int ORDINAL = 1;

  private static final Map<String, String> DEFAULTS = Map.of("mp.metrics.prometheus.enabled", "false");

  @Override
  public Set<String> getPropertyNames() {
    return DEFAULTS.keySet();
  }

  @Override
  public String getValue(String propertyName) {
    return DEFAULTS.get(propertyName);
  }

  @Override
  public String getName() {
    return "outbox-java-se defaults";
  }

  @Override
  public int getOrdinal() {
    return ORDINAL;
  }
}
