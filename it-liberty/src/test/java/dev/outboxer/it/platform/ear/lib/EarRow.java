package dev.outboxer.it.platform.ear.lib;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** An entity in the EAR's lib/ jar, listed by the web module's persistence unit. */
@Entity
@Table(name = "it_platform_ear_row")
public class EarRow {

    @Id
    private String id;

    protected EarRow() {
    }

    public EarRow(String id) {
        this.id = id;
    }

    public String getId() {
        return id;
    }
}
