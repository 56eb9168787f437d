package dev.outboxer.it.platform.tx;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSConsumer;
import jakarta.jms.JMSContext;
import jakarta.jms.Message;
import jakarta.jms.Queue;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;

/** Writes rows and JMS messages inside JTA transactions, the way the outbox and its relay will. */
@ApplicationScoped
public class TxProbe {

    public enum Provider { ECLIPSELINK, HIBERNATE }

    static final String ROW_ID = "rowId";

    @PersistenceContext(unitName = "smoke-eclipselink")
    EntityManager eclipseLink;

    @PersistenceContext(unitName = "smoke-hibernate")
    EntityManager hibernate;

    @Resource(lookup = "jms/outboxCF")
    ConnectionFactory connectionFactory;

    @Resource(lookup = "jms/orderEvents")
    Queue queue;

    EntityManager em(Provider provider) {
        return provider == Provider.ECLIPSELINK ? eclipseLink : hibernate;
    }

    /** Inserts a row, flushes it, sends a JMS message, then commits or (fail) rolls back both. */
    @Transactional
    public void writeAndSend(Provider provider, String id, String batch, boolean fail) {
        EntityManager em = em(provider);
        em.persist(provider == Provider.ECLIPSELINK ? new ElRow(id, batch) : new HbRow(id, batch));
        em.flush(); // the INSERT reaches PostgreSQL before the rollback
        // In a JTA transaction the JMSContext is enlisted (XA); closing it early is allowed.
        try (JMSContext jms = connectionFactory.createContext()) {
            jms.createProducer().setProperty(ROW_ID, id).send(queue, "row " + id);
        }
        if (fail) {
            throw new SmokeRollback("rollback requested for " + id);
        }
    }

    @Transactional
    public void insertRows(Provider provider, String batch, String... ids) {
        for (String id : ids) {
            em(provider).persist(provider == Provider.ECLIPSELINK ? new ElRow(id, batch) : new HbRow(id, batch));
        }
    }

    /** Outside a transaction: the transaction-scoped persistence context reads and detaches. */
    public boolean exists(Provider provider, String id) {
        Class<?> type = provider == Provider.ECLIPSELINK ? ElRow.class : HbRow.class;
        return em(provider).find(type, id) != null;
    }

    /** Receives the message of one row (auto-acknowledged, no transaction), or null after the timeout. */
    public String receive(String id, long timeoutMillis) throws Exception {
        try (JMSContext jms = connectionFactory.createContext();
                JMSConsumer consumer = jms.createConsumer(queue, ROW_ID + " = '" + id + "'")) {
            Message message = consumer.receive(timeoutMillis);
            return message == null ? null : message.getBody(String.class);
        }
    }

    public String providerOf(Provider provider) {
        return em(provider).getEntityManagerFactory().getClass().getName();
    }

    /** EclipseLink: no lock-timeout hint for SKIP LOCKED, so a native query. */
    @SuppressWarnings("unchecked")
    @Transactional
    public List<String> lockNextNative(String batch, int limit) {
        return eclipseLink.createNativeQuery(
                        "select id from it_platform_el_row where batch = ?1 order by id limit ?2 for update skip locked")
                .setParameter(1, batch) // ?1 batch
                .setParameter(2, limit) // ?2 limit
                .getResultList();
    }

    /** Hibernate: PESSIMISTIC_WRITE + lock timeout -2 is rendered as SKIP LOCKED on PostgreSQL. */
    @Transactional
    public List<String> lockNextHibernate(String batch, int limit) {
        return hibernate.createQuery("select r from HbRow r where r.batch = :batch order by r.id", HbRow.class)
                .setParameter("batch", batch)
                .setLockMode(LockModeType.PESSIMISTIC_WRITE)
                .setHint("jakarta.persistence.lock.timeout", -2)
                .setMaxResults(limit)
                .getResultStream()
                .map(HbRow::getId)
                .toList();
    }

    /** Locks the first row of the batch, reports it, and holds the lock until released. */
    @Transactional
    public List<String> lockAndHold(Provider provider, String batch, CountDownLatch locked, CountDownLatch release)
            throws InterruptedException {
        List<String> ids = provider == Provider.ECLIPSELINK ? lockNextNative(batch, 1) : lockNextHibernate(batch, 1);
        locked.countDown();
        if (!release.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("Indicates a bug in the test: the lock holder was never released");
        }
        return ids;
    }
}
