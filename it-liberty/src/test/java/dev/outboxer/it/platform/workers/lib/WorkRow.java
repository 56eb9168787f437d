package dev.outboxer.it.platform.workers.lib;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** Written by background work (executor task, EJB timer) on the embedded Derby database. */
@Entity
@Table(name = "it_platform_work_row")
public class WorkRow {

    @Id
    private String id;
    private String writer;

    protected WorkRow() {
    }

    public WorkRow(String id, String writer) {
        this.id = id;
        this.writer = writer;
    }

    public String getId() {
        return id;
    }

    public String getWriter() {
        return writer;
    }
}
