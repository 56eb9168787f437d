package dev.outboxer.cdi.internal.jdbc;

import jakarta.persistence.EntityManager;
import java.lang.reflect.Method;

/**
 * Looks through a CDI client proxy to the EntityManager of the current context. A normal-scoped
 * EntityManager bean (a {@code @TransactionScoped} one in Java SE) is reached through a client
 * proxy, and Weld hands back the proxy wherever the instance returns itself: Hibernate's {@code
 * unwrap(Session.class)} would then give the proxy, not the session. Container-managed
 * EntityManagers ({@code @PersistenceContext}) are not client proxies and pass through unchanged.
 * Weld is reached by reflection: Outboxer does not depend on it.
 */
final class ClientProxies {

  private static final String WELD_CLIENT_PROXY = "org.jboss.weld.proxy.WeldClientProxy";
  private static volatile Method getMetadata;
  private static volatile Method getContextualInstance;

  private ClientProxies() {}

  static EntityManager contextualInstance(EntityManager entityManager) {
    if (!isWeldClientProxy(entityManager.getClass())) {
      return entityManager;
    }
    try {
      Method metadata = getMetadata;
      if (metadata == null) {
        metadata = Class.forName(WELD_CLIENT_PROXY, false, entityManager.getClass().getClassLoader())
            .getMethod("getMetadata");
        getMetadata = metadata;
      }
      Object meta = metadata.invoke(entityManager);
      Method instance = getContextualInstance;
      if (instance == null) {
        instance = metadata.getReturnType().getMethod("getContextualInstance");
        getContextualInstance = instance;
      }
      return (EntityManager) instance.invoke(meta);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return entityManager;
    }
  }

  private static boolean isWeldClientProxy(Class<?> type) {
    for (Class<?> current = type; current != null; current = current.getSuperclass()) {
      for (Class<?> implemented : current.getInterfaces()) {
        if (implemented.getName().equals(WELD_CLIENT_PROXY)) {
          return true;
        }
      }
    }
    return false;
  }
}
