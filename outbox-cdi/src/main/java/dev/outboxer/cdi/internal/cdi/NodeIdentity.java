package dev.outboxer.cdi.internal.cdi;

import dev.outboxer.cdi.internal.config.OutboxConfiguration;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.UUID;

/**
 * This node's name ({@code outbox.node-id}) and this run's instance id, new at every start. The
 * instance id is written with every claim: a worker that finds its own instance as the previous
 * owner of a partition knows nobody else touched it since its last batch.
 */
@ApplicationScoped
public class NodeIdentity {

  /** Written as the owner by admin operations that change a partition's rows behind its worker's back. */
  public static final String ADMIN_INSTANCE = "admin";

  @Inject OutboxConfiguration configuration;

  private final String instance = UUID.randomUUID().toString();

  public String node() {
    return configuration.nodeId();
  }

  public String instance() {
    return instance;
  }
}
