package dev.outboxer.it.telemetry;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import java.util.Set;

/**
 * The test's own REST application under {@code /traced-api}: the sample's application names its
 * resources, so a resource added to the WAR needs an application of its own.
 */
@ApplicationPath("/traced-api")
public class TracedPublishApplication extends Application {

  @Override
  public Set<Class<?>> getClasses() {
    return Set.of(TracedPublishResource.class);
  }
}
