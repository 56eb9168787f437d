package dev.outboxer.se;

import dev.outboxer.OutboxPersistence;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Default;
import jakarta.enterprise.inject.spi.AfterBeanDiscovery;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessBean;
import jakarta.enterprise.util.AnnotationLiteral;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.transaction.TransactionScoped;
import jakarta.transaction.UserTransaction;
import javax.sql.DataSource;

/**
 * A CDI extension that registers what an application server would provide to Outboxer and to the
 * application's beans:
 *
 * <ul>
 *   <li>a transaction-scoped {@code EntityManager} of the given factory, qualified {@link
 *       OutboxPersistence}, and (if asked) the same unqualified, for the application's services
 *       ({@code @Inject EntityManager});
 *   <li>the JTA data source, qualified {@link OutboxPersistence}: Outboxer writes through it, the
 *       inbox uses it, and on PostgreSQL its workers wake each other with LISTEN/NOTIFY;
 *   <li>Narayana's {@code UserTransaction}.
 * </ul>
 *
 * <p>A bean of the application that provides one of these itself (its own {@code UserTransaction}
 * producer, an {@code @OutboxPersistence} {@code EntityManager} or {@code DataSource}, an unqualified
 * {@code EntityManager}) wins and this one is not registered: two beans of one type would make every
 * injection of it ambiguous.
 */
public final class JavaSeBeans implements Extension {

  private final EntityManagerFactory entityManagerFactory;
  private final DataSource outboxDataSource;
  private final boolean offerDefaultEntityManager;

  private boolean applicationUserTransaction;
  private boolean applicationEntityManager;
  private boolean applicationDataSource;
  private boolean applicationDefaultEntityManager;

  /**
   * @param entityManagerFactory the application's persistence unit, or null for none (then no
   *     EntityManager is registered)
   * @param outboxDataSource the JTA data source to register as {@code @OutboxPersistence}, or null for none
   * @param offerDefaultEntityManager whether the EntityManager is also registered unqualified
   */
  public JavaSeBeans(EntityManagerFactory entityManagerFactory, DataSource outboxDataSource,
      boolean offerDefaultEntityManager) {
    this.entityManagerFactory = entityManagerFactory;
    this.outboxDataSource = outboxDataSource;
    this.offerDefaultEntityManager = offerDefaultEntityManager;
  }

  void seen(@Observes ProcessBean<?> event) {
    Bean<?> bean = event.getBean();
    boolean outboxPersistence = bean.getQualifiers().stream().anyMatch(OutboxPersistence.class::isInstance);
    boolean byDefault = bean.getQualifiers().stream().anyMatch(Default.class::isInstance);
    applicationUserTransaction |= byDefault && bean.getTypes().contains(UserTransaction.class);
    applicationEntityManager |= outboxPersistence && bean.getTypes().contains(EntityManager.class);
    applicationDataSource |= outboxPersistence && bean.getTypes().contains(DataSource.class);
    applicationDefaultEntityManager |= byDefault && bean.getTypes().contains(EntityManager.class);
  }

  void register(@Observes AfterBeanDiscovery discovery) {
    if (entityManagerFactory != null && !applicationEntityManager) {
      discovery.<EntityManager>addBean()
          .types(EntityManager.class, Object.class)
          .qualifiers(OutboxPersistenceLiteral.INSTANCE, Any.Literal.INSTANCE)
          .scope(TransactionScoped.class)
          .produceWith(instance -> entityManagerFactory.createEntityManager())
          .disposeWith((entityManager, instance) -> entityManager.close());
    }
    if (entityManagerFactory != null && offerDefaultEntityManager && !applicationDefaultEntityManager) {
      discovery.<EntityManager>addBean()
          .types(EntityManager.class, Object.class)
          .qualifiers(Default.Literal.INSTANCE, Any.Literal.INSTANCE)
          .scope(TransactionScoped.class)
          .produceWith(instance -> entityManagerFactory.createEntityManager())
          .disposeWith((entityManager, instance) -> entityManager.close());
    }
    if (!applicationUserTransaction) {
      discovery.<UserTransaction>addBean()
          .types(UserTransaction.class, Object.class)
          .produceWith(instance -> com.arjuna.ats.jta.UserTransaction.userTransaction());
    }
    if (outboxDataSource != null && !applicationDataSource) {
      discovery.<DataSource>addBean()
          .types(DataSource.class, Object.class)
          .qualifiers(OutboxPersistenceLiteral.INSTANCE, Any.Literal.INSTANCE)
          .produceWith(instance -> outboxDataSource);
    }
  }

  /** The {@link OutboxPersistence} qualifier, for lookups. */
  public static final class OutboxPersistenceLiteral extends AnnotationLiteral<OutboxPersistence>
      implements OutboxPersistence {
    private static final long serialVersionUID = 1L;
    /** The one instance. */
    public static final OutboxPersistenceLiteral INSTANCE = new OutboxPersistenceLiteral();

    private OutboxPersistenceLiteral() {
    }
  }
}
