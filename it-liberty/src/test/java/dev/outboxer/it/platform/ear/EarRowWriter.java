package dev.outboxer.it.platform.ear;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.transaction.Transactional;

import dev.outboxer.it.platform.ear.lib.EarRow;

/** Lives in the web module; writes the EAR-library entity through the web module's unit (Derby). */
@ApplicationScoped
public class EarRowWriter {

    @PersistenceContext(unitName = "ear")
    EntityManager em;

    @Transactional
    public void write(String id) {
        em.persist(new EarRow(id));
    }

    public boolean exists(String id) {
        return em.find(EarRow.class, id) != null;
    }
}
