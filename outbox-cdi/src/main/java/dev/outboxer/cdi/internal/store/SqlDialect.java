package dev.outboxer.cdi.internal.store;

import java.util.Locale;
import java.util.Optional;

/**
 * The few statements JPA cannot say portably: the next sequence value, a partition claim that
 * skips a locked row instead of waiting (JPA has no portable SKIP LOCKED: the lock-timeout hint
 * value -2 is Hibernate's, and EclipseLink ignores it), and PostgreSQL's advisory lock.
 */
public enum SqlDialect {
  POSTGRESQL(
      "SELECT nextval('outbox_message_seq')",
      "SELECT partition_no FROM outbox_partition WHERE outbox = ? AND partition_no = ? FOR UPDATE SKIP LOCKED",
      true),
  MARIADB(
      "SELECT NEXT VALUE FOR outbox_message_seq",
      "SELECT partition_no FROM outbox_partition WHERE outbox = ? AND partition_no = ? FOR UPDATE SKIP LOCKED",
      false),
  H2(
      "SELECT NEXT VALUE FOR outbox_message_seq",
      "SELECT partition_no FROM outbox_partition WHERE outbox = ? AND partition_no = ? FOR UPDATE SKIP LOCKED",
      false),
  /**
   * Derby has neither SKIP LOCKED nor NOWAIT: a claim waits for the lock. Derby is an embedded,
   * single-JVM database, where Outboxer never runs two workers on one partition anyway.
   */
  DERBY(
      "VALUES NEXT VALUE FOR outbox_message_seq",
      "SELECT partition_no FROM outbox_partition WHERE outbox = ? AND partition_no = ? FOR UPDATE",
      false);

  private final String nextIdSql;
  private final String claimPartitionSql;
  private final boolean advisoryLocks;

  SqlDialect(String nextIdSql, String claimPartitionSql, boolean advisoryLocks) {
    this.nextIdSql = nextIdSql;
    this.claimPartitionSql = claimPartitionSql;
    this.advisoryLocks = advisoryLocks;
  }

  public String nextIdSql() {
    return nextIdSql;
  }

  /** Parameters: 1 outbox, 2 partition. Returns the row if this transaction now holds it, nothing if another does. */
  public String claimPartitionSql() {
    return claimPartitionSql;
  }

  /** Whether {@code serialize-writes} uses {@code pg_advisory_xact_lock} rather than lock rows. */
  public boolean advisoryLocks() {
    return advisoryLocks;
  }

  /** Parameter: 1 the 64-bit lock key. Wrapped in a count so that no provider has to map PostgreSQL's void. */
  public String advisoryLockSql() {
    return "SELECT COUNT(*) FROM (SELECT pg_advisory_xact_lock(?)) AS outbox_lock";
  }

  /** The DDL script shipped for this database. */
  public String ddlResource() {
    return "META-INF/outboxer/ddl/" + configValue() + ".sql";
  }

  public String configValue() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Optional<SqlDialect> fromConfig(String value) {
    for (SqlDialect dialect : values()) {
      if (dialect.configValue().equalsIgnoreCase(value.trim())) {
        return Optional.of(dialect);
      }
    }
    return Optional.empty();
  }

  /** Recognises a database from what {@code SELECT version()} or a JDBC product name says. */
  public static Optional<SqlDialect> fromProductName(String product) {
    String name = product.toLowerCase(Locale.ROOT);
    if (name.contains("postgres")) {
      return Optional.of(POSTGRESQL);
    }
    if (name.contains("mariadb")) {
      return Optional.of(MARIADB);
    }
    if (name.contains("h2")) {
      return Optional.of(H2);
    }
    if (name.contains("derby")) {
      return Optional.of(DERBY);
    }
    return Optional.empty();
  }
}
