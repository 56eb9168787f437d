package dev.outboxer.it.platform.workers.lib;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;

/** Counts the rows the background work wrote. */
@ApplicationScoped
public class WorkRows {

    @PersistenceContext(unitName = "workers")
    EntityManager em;

    public long countBy(String writer) {
        return em.createQuery("select count(r) from WorkRow r where r.writer = :writer", Long.class)
                .setParameter("writer", writer)
                .getSingleResult();
    }
}
