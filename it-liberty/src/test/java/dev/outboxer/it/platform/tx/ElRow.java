package dev.outboxer.it.platform.tx;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A row written through EclipseLink (Liberty's default provider). */
@Entity
@Table(name = "it_platform_el_row")
public class ElRow {

    @Id
    private String id;
    private String batch;

    protected ElRow() {
    }

    public ElRow(String id, String batch) {
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
