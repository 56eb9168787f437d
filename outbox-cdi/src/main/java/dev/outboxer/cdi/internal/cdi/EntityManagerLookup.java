package dev.outboxer.cdi.internal.cdi;

import dev.outboxer.OutboxException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Default;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;

/**
 * The application's EntityManager that Outboxer works with: the {@code @OutboxPersistence} one, or
 * else the application's only {@code @Default} one. The {@link DeploymentCheck}
 * makes sure one of them exists.
 *
 * <p>The reference is resolved once and kept: it is a container-managed, transaction-scoped proxy
 * (or a CDI client proxy), safe to share between threads, that reaches the persistence context of
 * the calling thread's transaction.
 */
@ApplicationScoped
public class EntityManagerLookup {

  @Inject @Any Instance<EntityManager> entityManagers;

  private volatile EntityManager entityManager;

  public EntityManager entityManager() {
    EntityManager found = entityManager;
    if (found == null) {
      Instance<EntityManager> qualified = entityManagers.select(OutboxPersistenceLiteral.INSTANCE);
      Instance<EntityManager> instance = qualified.isResolvable() ? qualified : entityManagers.select(Default.Literal.INSTANCE);
      if (!instance.isResolvable()) {
        throw new OutboxException(DeploymentCheck.MISSING_ENTITY_MANAGER);
      }
      found = instance.get();
      entityManager = found;
    }
    return found;
  }
}
