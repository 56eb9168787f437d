package dev.outboxer.chaos.quarkus;

import dev.outboxer.chaos.QuarkusWorker;
import dev.outboxer.spi.Relay;
import io.quarkus.arc.Unremovable;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Named;

/**
 * The chaos suite's table relay as a bean of the Quarkus worker ({@code outbox.chaos.relay=table}):
 * outbox-chaos is no bean archive, so the relay comes from this producer. Looked up by name at run
 * time, hence kept.
 */
@ApplicationScoped
public class ChaosRelays {

  @Produces
  @ApplicationScoped
  @Named("table")
  @Unremovable
  Relay table() {
    return QuarkusWorker.tableRelay();
  }
}
