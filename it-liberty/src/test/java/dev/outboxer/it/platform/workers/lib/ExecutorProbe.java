package dev.outboxer.it.platform.workers.lib;

import java.util.UUID;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import javax.naming.InitialContext;

import jakarta.annotation.PreDestroy;
import jakarta.annotation.Resource;
import jakarta.enterprise.concurrent.ManagedScheduledExecutorService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Synchronization;
import jakarta.transaction.TransactionSynchronizationRegistry;
import jakarta.transaction.UserTransaction;

/**
 * A CDI bean in a WEB-INF/lib jar that starts a poller the way the outbox worker will: the default
 * ManagedScheduledExecutorService looked up by JNDI at application start, a task that demarcates
 * its own transaction with the UserTransaction from JNDI. It also records whether the CDI-injected
 * UserTransaction and the TransactionSynchronizationRegistry (JNDI, @Resource, CDI) work there.
 */
@ApplicationScoped
public class ExecutorProbe {

    @Inject
    ProbeLog log;

    @Inject
    Instance<UserTransaction> cdiUserTransaction;

    @Inject
    Instance<TransactionSynchronizationRegistry> cdiRegistry;

    @Resource
    TransactionSynchronizationRegistry resourceRegistry;

    @PersistenceContext(unitName = "workers")
    EntityManager em;

    private volatile ScheduledFuture<?> poller;

    void start(@Observes @Initialized(ApplicationScoped.class) Object applicationStarted) {
        try {
            ManagedScheduledExecutorService executor =
                    InitialContext.doLookup("java:comp/DefaultManagedScheduledExecutorService");
            log.put("mses.lookup", "ok");
            poller = executor.scheduleWithFixedDelay(this::poll, 100, 300, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            log.put("mses.lookup", ProbeLog.describe(e));
        }
    }

    @PreDestroy
    void stop() {
        if (poller != null) {
            poller.cancel(false);
        }
    }

    private void poll() {
        if (log.increment("mses.ticks") > 1) {
            return; // probe once, keep counting ticks
        }
        log.put("mses.thread", Thread.currentThread().getName());
        probeJndiUserTransaction();
        probeCdiUserTransaction();
        probeRegistries();
    }

    private void probeJndiUserTransaction() {
        try {
            UserTransaction tx = InitialContext.doLookup("java:comp/UserTransaction");
            tx.begin();
            try {
                TransactionSynchronizationRegistry registry =
                        InitialContext.doLookup("java:comp/TransactionSynchronizationRegistry");
                log.put("tsr.jndi.status", TxStatus.name(registry.getTransactionStatus()));
                registry.registerInterposedSynchronization(new Synchronization() {
                    @Override
                    public void beforeCompletion() {
                        log.put("tsr.beforeCompletion", "called");
                    }

                    @Override
                    public void afterCompletion(int status) {
                        log.put("tsr.afterCompletion", TxStatus.name(status));
                    }
                });
                em.persist(new WorkRow("executor-" + UUID.randomUUID(), "executor"));
                tx.commit();
                log.put("mses.ut.jndi", "committed");
            } catch (Exception e) {
                tx.rollback();
                throw e;
            }
        } catch (Exception e) {
            log.put("mses.ut.jndi", ProbeLog.describe(e));
        }
    }

    private void probeCdiUserTransaction() {
        try {
            UserTransaction tx = cdiUserTransaction.get();
            tx.begin();
            log.put("cdi.ut.status", TxStatus.name(tx.getStatus()));
            tx.rollback();
        } catch (Exception e) {
            log.put("cdi.ut.status", ProbeLog.describe(e));
        }
    }

    private void probeRegistries() {
        log.put("cdi.tsr.resolvable", String.valueOf(cdiRegistry.isResolvable()));
        try {
            log.put("resource.tsr.status", resourceRegistry == null
                    ? "not injected"
                    : TxStatus.name(resourceRegistry.getTransactionStatus()));
        } catch (Exception e) {
            log.put("resource.tsr.status", ProbeLog.describe(e));
        }
    }
}
