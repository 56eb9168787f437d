package dev.outboxer.it.platform.workers.lib;

import java.util.UUID;

import jakarta.annotation.PostConstruct;
import jakarta.annotation.Resource;
import jakarta.ejb.Singleton;
import jakarta.ejb.Startup;
import jakarta.ejb.Timeout;
import jakarta.ejb.Timer;
import jakarta.ejb.TimerConfig;
import jakarta.ejb.TimerService;
import jakarta.ejb.TransactionManagement;
import jakarta.ejb.TransactionManagementType;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.UserTransaction;

/**
 * The "ejb-timer" worker shape: a bean-managed-transaction startup singleton in a WEB-INF/lib jar
 * creates a non-persistent programmatic interval timer; each timeout demarcates its own transaction.
 */
@Singleton
@Startup
@TransactionManagement(TransactionManagementType.BEAN)
public class TimerProbe {

    @Resource
    TimerService timerService;

    @Resource
    UserTransaction tx;

    @PersistenceContext(unitName = "workers")
    EntityManager em;

    @Inject
    ProbeLog log;

    @PostConstruct
    void start() {
        timerService.createIntervalTimer(100, 300, new TimerConfig("outboxer-smoke-timer", false));
        log.put("timer.created", "ok");
    }

    @Timeout
    void tick(Timer timer) {
        if (log.increment("timer.ticks") > 1) {
            return;
        }
        log.put("timer.info", String.valueOf(timer.getInfo()) + ", persistent=" + timer.isPersistent());
        try {
            log.put("timer.status.before", TxStatus.name(tx.getStatus()));
            tx.begin();
            em.persist(new WorkRow("timer-" + UUID.randomUUID(), "timer"));
            tx.commit();
            log.put("timer.ut", "committed");
        } catch (Exception e) {
            log.put("timer.ut", ProbeLog.describe(e));
        }
    }
}
