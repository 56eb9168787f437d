package dev.outboxer.cdi.internal.store;

import dev.outboxer.spi.SupportedDatabase;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * The databases Outboxer supports, and what each can do that changes how Outboxer talks to it.
 * The SQL that is the same on every database lives with the store that runs it ({@link PublishStatements},
 * {@link BatchStatements}, {@link RulesStore}, {@link AdminStatements}); what differs is in one class per
 * database behind {@link DialectSql} ({@link #sql()}) and, for the workers' batches, {@link BatchSql}
 * ({@link #batchSql()}).
 */
public enum Dialect {
  /**
   * PostgreSQL 12+: transaction-scoped advisory locks for {@code serialize-writes}, arrays for id
   * lists, and transaction snapshots that tell when every id below a bound is settled, which lets a
   * worker start its reads where its last batch ended instead of at the partition's first row.
   */
  POSTGRESQL(new PostgresSql(), sql -> new PostgresBatchSql()),
  /** MariaDB 10.6+: lock rows for {@code serialize-writes}; workers lock by primary key only. */
  MARIADB(new MariaDbSql(), MariaDbBatchSql::new),
  /** H2 2.x: tests and embedded demos on one JVM. */
  H2(new H2Sql(), H2BatchSql::new),
  /**
   * SQLite 3.35+ (xerial sqlite-jdbc), one process only: the database has a single writer at a
   * time, so a transaction that writes holds the whole database until it ends. Claims, admin
   * operations and the rules take that write lock instead of row locks ({@code FOR UPDATE} does not
   * exist); ids come from a counter row updated under it, so ids follow commit order and {@code
   * serialize-writes} needs nothing. No sequences: see {@code sqlite.sql}.
   */
  SQLITE(new SqliteSql(), SqliteBatchSql::new);

  private final DialectSql sql;
  private final BatchSql batchSql;

  Dialect(DialectSql sql, Function<DialectSql, BatchSql> batchSql) {
    this.sql = sql;
    this.batchSql = batchSql.apply(sql);
  }

  /** This database's way of writing the statements that differ between databases. */
  DialectSql sql() {
    return sql;
  }

  /** This database's statements of a worker's batch transaction. */
  BatchSql batchSql() {
    return batchSql;
  }

  public String configValue() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Whether {@code serialize-writes} takes {@code pg_advisory_xact_lock} rather than a lock row. */
  public boolean advisoryLocks() {
    return this == POSTGRESQL;
  }

  /**
   * Whether a worker can keep a read cursor per partition: the database must tell when all ids up
   * to a value are settled (committed or rolled back), so that a read that skips lower ids never
   * misses a late commit.
   */
  public boolean settledReads() {
    return this == POSTGRESQL;
  }

  /**
   * Whether one writer at a time holds the whole database until its transaction ends (SQLite):
   * there are no row locks, a transaction that writes first serialises with every other writer, and
   * ids taken under that lock increase in commit order.
   */
  public boolean singleWriter() {
    return this == SQLITE;
  }

  /**
   * Whether DDL can run in a JTA transaction, the only way Outboxer reaches the database: not on
   * MariaDB, where DDL commits implicitly, which it refuses inside an XA transaction.
   */
  public boolean ddlInJtaTransactions() {
    return this != MARIADB;
  }

  /** The DDL script shipped for this database. */
  public String ddlResource() {
    return "META-INF/outboxer/ddl/" + configValue() + ".sql";
  }

  /**
   * The folder of the Flyway migrations shipped for this database (a {@code classpath:} location).
   * Not under Flyway's default {@code db/migration}: Flyway scans its locations recursively, and an
   * application's own Flyway would find the migrations of every database there, all at version 1.
   */
  public String flywayLocation() {
    return "META-INF/outboxer/flyway/" + configValue();
  }

  /** The Liquibase changelog shipped for this database. */
  public String liquibaseChangelog() {
    return "META-INF/outboxer/liquibase/" + configValue() + ".xml";
  }

  /** The dialect of an {@code outbox.database} value; empty for a database Outboxer does not know. */
  public static Optional<Dialect> fromConfig(String value) {
    return SupportedDatabase.fromConfigValue(value).map(Dialect::of);
  }

  /** The dialect of a database the SPI recognised (the same constants, by name). */
  public static Dialect of(SupportedDatabase database) {
    return valueOf(database.name());
  }
}
