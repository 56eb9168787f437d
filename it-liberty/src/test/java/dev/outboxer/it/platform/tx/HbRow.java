package dev.outboxer.it.platform.tx;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * A row written through Hibernate. A separate class from {@link ElRow} on purpose: EclipseLink weaves
 * the classes of its persistence units, Hibernate must not see woven classes.
 */
@Entity
@Table(name = "it_platform_hb_row")
public class HbRow {

    @Id
    private String id;
    private String batch;

    protected HbRow() {
    }

    public HbRow(String id, String batch) {
        this.id = id;
        this.batch = batch;
    }

    public String getId() {
        return id;
    }

    public String getBatch() {
        return batch;
    }
}
