package dev.outboxer.benchmark;

import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.function.LongFunction;

/**
 * Every SQL statement of the benchmark that touches Outboxer's tables, with the schema's column
 * list in one place ({@link #COLUMNS}): when the schema changes, this is the class to adapt.
 *
 * <p>The raw contender is "the same SQL work by hand": a partition claim with {@code SKIP LOCKED},
 * a read of the next pending rows by id, a delete of what was read, a commit; and for publishing,
 * one plain {@code INSERT} of a row like the one Outboxer writes.
 *
 * <p>Rows are built from a {@link Template}: the rows Outboxer itself wrote for one message of
 * every group. A new row copies its group's template row and sets only {@link #PER_MESSAGE}
 * columns, so a column added to the schema is carried over without a change here; {@link
 * Template#mismatches} proves, on every run, that the rows written this way equal the ones
 * Outboxer writes for the same messages.
 */
final class RawJdbc {

  /** The columns of {@code outbox_message}, in one place. */
  static final List<String> COLUMNS = List.of("id", "outbox", "partition_no", "partition_key", "group_key", "message_type",
      "content_type", "payload", "headers", "status", "attempts", "next_attempt_at", "created_at", "last_attempt_at",
      "last_error");
  /** The columns that differ between two rows of the same message: set per insert, not compared. */
  static final Set<String> PER_INSERT = Set.of("id", "created_at");
  /** The columns that differ between messages of one group. */
  static final Set<String> PER_MESSAGE = Set.of("id", "created_at", "payload");
  private static final String PENDING = "PENDING";
  private static final int ROWS_PER_FILL_TRANSACTION = 1_000;

  private final TestDatabase database;
  private final String select = String.join(", ", COLUMNS);

  RawJdbc(TestDatabase database) {
    this.database = database;
  }

  TestDatabase database() {
    return database;
  }

  /** A plain (non-JTA) connection; on PostgreSQL with batched inserts rewritten into multi-row inserts. */
  Connection connect() throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("user", database.user());
    properties.setProperty("password", database.password());
    if (database == TestDatabase.POSTGRESQL) {
      properties.setProperty("reWriteBatchedInserts", "true");
    }
    return DriverManager.getConnection(database.url(), properties);
  }

  private String nextId() {
    return database == TestDatabase.POSTGRESQL ? "nextval('outbox_message_seq')" : "NEXT VALUE FOR outbox_message_seq";
  }

  /** Empties the message table, so that every contender starts from the same state. */
  void truncate() throws SQLException {
    try (Connection connection = connect(); Statement statement = connection.createStatement()) {
      statement.execute("TRUNCATE TABLE outbox_message");
    }
  }

  /** Deletes one outbox's rows (row 8 empties the publishing outbox between its two halves). */
  void deleteOutbox(String outbox) throws SQLException {
    try (Connection connection = connect();
        PreparedStatement statement = connection.prepareStatement("DELETE FROM outbox_message WHERE outbox = ?")) {
      statement.setString(1, outbox);
      statement.executeUpdate();
    }
  }

  /** Refreshes the planner's statistics after a fill, as a table in steady use would have them. */
  void analyze() throws SQLException {
    try (Connection connection = connect(); Statement statement = connection.createStatement()) {
      statement.execute(database == TestDatabase.POSTGRESQL ? "ANALYZE outbox_message" : "ANALYZE TABLE outbox_message");
    }
  }

  long count(String outbox) throws SQLException {
    return single("SELECT COUNT(*) FROM outbox_message WHERE outbox = ?", outbox);
  }

  long countGroup(String outbox, String groupKey) throws SQLException {
    try (Connection connection = connect();
        PreparedStatement statement = connection.prepareStatement(
            "SELECT COUNT(*) FROM outbox_message WHERE outbox = ? AND group_key = ?")) {
      statement.setString(1, outbox);
      statement.setString(2, groupKey);
      try (ResultSet rows = statement.executeQuery()) {
        rows.next();
        return rows.getLong(1);
      }
    }
  }

  /** The smallest and largest id of an outbox's rows, or null when it has none. */
  long[] idRange(String outbox) throws SQLException {
    try (Connection connection = connect();
        PreparedStatement statement = connection.prepareStatement(
            "SELECT MIN(id), MAX(id) FROM outbox_message WHERE outbox = ?")) {
      statement.setString(1, outbox);
      try (ResultSet rows = statement.executeQuery()) {
        rows.next();
        long min = rows.getLong(1);
        return rows.wasNull() ? null : new long[] {min, rows.getLong(2)};
      }
    }
  }

  private long single(String sql, String outbox) throws SQLException {
    try (Connection connection = connect(); PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, outbox);
      try (ResultSet rows = statement.executeQuery()) {
        rows.next();
        return rows.getLong(1);
      }
    }
  }

  /** Every row of an outbox, in id order, as stored. */
  List<Object[]> readAll(String outbox) throws SQLException {
    try (Connection connection = connect();
        PreparedStatement statement = connection.prepareStatement(
            "SELECT " + select + " FROM outbox_message WHERE outbox = ? ORDER BY id")) {
      statement.setString(1, outbox);
      try (ResultSet rows = statement.executeQuery()) {
        List<Object[]> result = new ArrayList<>();
        while (rows.next()) {
          result.add(values(rows));
        }
        return result;
      }
    }
  }

  private static Object[] values(ResultSet rows) throws SQLException {
    Object[] values = new Object[COLUMNS.size()];
    for (int i = 0; i < values.length; i++) {
      values[i] = rows.getObject(i + 1);
    }
    return values;
  }

  /** Learns the template of an outbox from rows Outboxer wrote, one or more per group. */
  Template learn(String outbox, int groups, LongFunction<byte[]> payloadOfSequence) throws SQLException {
    Object[][] byGroup = new Object[groups][];
    int[] types = new int[COLUMNS.size()];
    try (Connection connection = connect();
        PreparedStatement statement = connection.prepareStatement(
            "SELECT " + select + " FROM outbox_message WHERE outbox = ? ORDER BY id")) {
      statement.setString(1, outbox);
      try (ResultSet rows = statement.executeQuery()) {
        ResultSetMetaData meta = rows.getMetaData();
        for (int i = 0; i < types.length; i++) {
          types[i] = meta.getColumnType(i + 1);
        }
        while (rows.next()) {
          Object[] values = values(rows);
          int group = BenchMessage.groupIndex((String) values[COLUMNS.indexOf("group_key")]);
          if (group >= 0 && group < groups && byGroup[group] == null) {
            byGroup[group] = values;
          }
        }
      }
    }
    for (int group = 0; group < groups; group++) {
      if (byGroup[group] == null) {
        throw new IllegalStateException("Outbox '" + outbox + "' has no row of group-" + group + " to learn from:"
            + " publish one message of every group before learning. Indicates a bug in the benchmark.");
      }
    }
    return new Template(outbox, byGroup, types, payloadOfSequence);
  }

  /** Inserts rows for the messages {@code first} to {@code first + count - 1}, 1,000 per transaction. */
  void bulkInsert(Template template, long first, long count, int groups) throws SQLException {
    try (Connection connection = connect(); PreparedStatement insert = connection.prepareStatement(insertSql())) {
      connection.setAutoCommit(false);
      LocalDateTime now = LocalDateTime.now(ZoneOffset.UTC);
      for (long sequence = first; sequence < first + count; sequence++) {
        bind(insert, template, sequence, groups, now);
        insert.addBatch();
        if ((sequence - first + 1) % ROWS_PER_FILL_TRANSACTION == 0 || sequence == first + count - 1) {
          insert.executeBatch();
          connection.commit();
          now = LocalDateTime.now(ZoneOffset.UTC);
        }
      }
    }
  }

  /** One plain INSERT of a message's row, on the caller's connection (and in its transaction). */
  void insert(Connection connection, Template template, long sequence, int groups) throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement(insertSql())) {
      bind(insert, template, sequence, groups, LocalDateTime.now(ZoneOffset.UTC));
      insert.executeUpdate();
    }
  }

  /** The id the last {@link #insert} on this connection drew (a second statement: for the latency row only). */
  long lastInsertedId(Connection connection) throws SQLException {
    String sql = database == TestDatabase.POSTGRESQL ? "SELECT currval('outbox_message_seq')"
        : "SELECT PREVIOUS VALUE FOR outbox_message_seq";
    try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getLong(1);
    }
  }

  private String insertSql() {
    List<String> values = new ArrayList<>();
    for (String column : COLUMNS) {
      values.add(column.equals("id") ? nextId() : "?");
    }
    return "INSERT INTO outbox_message (" + select + ") VALUES (" + String.join(", ", values) + ")";
  }

  private static void bind(PreparedStatement insert, Template template, long sequence, int groups, LocalDateTime now)
      throws SQLException {
    Object[] row = template.rowOf(Math.floorMod(sequence, (long) groups));
    int parameter = 1;
    for (int i = 0; i < COLUMNS.size(); i++) {
      String column = COLUMNS.get(i);
      Object value = switch (column) {
        case "id" -> null;
        case "created_at" -> now;
        case "payload" -> template.payload(sequence);
        default -> row[i];
      };
      if (column.equals("id")) {
        continue;
      }
      if (value == null) {
        insert.setNull(parameter++, template.sqlType(i));
      } else {
        insert.setObject(parameter++, value);
      }
    }
  }

  /**
   * The raw drain of one partition on one plain connection: batch after batch (see {@link
   * RawWorker#batch}) until a read finds nothing, or until {@code keepGoing} says stop.
   */
  void drainPartition(Connection connection, String outbox, int partition, int batchSize, DrainProbe probe,
      java.util.function.BooleanSupplier keepGoing) throws SQLException {
    try (RawWorker worker = new RawWorker(connection, outbox, partition, batchSize)) {
      while (keepGoing.getAsBoolean()) {
        if (!worker.batch(probe::handed, probe::committed)) {
          return;
        }
      }
      connection.rollback();
    }
  }

  /** What a raw batch read and deleted, handed over before its commit. */
  @FunctionalInterface
  interface Handover {
    void handed(long[] ids, String[] groups) throws SQLException;
  }

  /**
   * The raw worker of one partition on one plain connection: the fastest correct plain JDBC for the
   * same work, the yardstick of the drain. Per batch: {@code BEGIN} (the driver's, with the first
   * statement); claim the partition row ({@code FOR UPDATE SKIP LOCKED}); read up to {@code
   * batchSize} fresh pending rows with an id above the last one read, the columns Outboxer hands a
   * relay ({@code BatchStatements.MESSAGE_COLUMNS}) with typed getters; hand them over; delete them
   * by id ({@code id = ANY(array)} on PostgreSQL, one statement for any batch size; an id list on
   * MariaDB); {@code COMMIT}. No transaction manager, no pool; every statement prepared once and
   * reused (server-side after pgjdbc's fifth execution).
   */
  final class RawWorker implements AutoCloseable {
    private final Connection connection;
    private final String outbox;
    private final int partition;
    private final int batchSize;
    private final boolean postgres;
    private final PreparedStatement claim;
    private final PreparedStatement read;
    private final PreparedStatement deleteFull;
    private long lastId = Long.MIN_VALUE;

    /** One row as read: what a relay gets. */
    private record Read(long id, String groupKey, String type, String contentType, byte[] payload, String headers,
        int attempts, java.time.LocalDateTime nextAttemptAt, java.time.LocalDateTime createdAt) {}

    RawWorker(Connection connection, String outbox, int partition, int batchSize) throws SQLException {
      this.connection = connection;
      this.outbox = outbox;
      this.partition = partition;
      this.batchSize = batchSize;
      this.postgres = database == TestDatabase.POSTGRESQL;
      connection.setAutoCommit(false);
      claim = connection.prepareStatement(
          "SELECT partition_no FROM outbox_partition WHERE outbox = ? AND partition_no = ? FOR UPDATE SKIP LOCKED");
      read = connection.prepareStatement("SELECT id, group_key, message_type, content_type, payload, headers,"
          + " attempts, next_attempt_at, created_at FROM outbox_message"
          + " WHERE outbox = ? AND partition_no = ? AND status = '" + PENDING + "' AND next_attempt_at IS NULL AND id > ?"
          + " ORDER BY id LIMIT " + batchSize);
      deleteFull = connection.prepareStatement(postgres ? "DELETE FROM outbox_message WHERE id = ANY(?)"
          : deleteSql(batchSize));
    }

    /**
     * One batch; {@code beforeRelay} runs once rows were read, {@code relay} gets them before the
     * delete, {@code committed} after the commit. False (and committed, nothing handed over) if the
     * read found nothing.
     */
    boolean batch(Runnable beforeRelay, Handover relay, Handover committed) throws SQLException {
      claim.setString(1, outbox);
      claim.setInt(2, partition);
      try (ResultSet claimed = claim.executeQuery()) {
        if (!claimed.next()) {
          throw new IllegalStateException("Partition " + partition + " of outbox '" + outbox + "' is missing or held by"
              + " another transaction; the raw worker expects it to itself. Indicates a bug in the benchmark.");
        }
      }
      read.setString(1, outbox);
      read.setInt(2, partition);
      read.setLong(3, lastId);
      List<Read> batch = new ArrayList<>(batchSize);
      try (ResultSet rows = read.executeQuery()) {
        while (rows.next()) {
          batch.add(new Read(rows.getLong(1), rows.getString(2), rows.getString(3), rows.getString(4),
              rows.getBytes(5), rows.getString(6), rows.getInt(7), rows.getObject(8, java.time.LocalDateTime.class),
              rows.getObject(9, java.time.LocalDateTime.class)));
        }
      }
      if (batch.isEmpty()) {
        connection.commit();
        return false;
      }
      beforeRelay.run();
      long[] ids = new long[batch.size()];
      String[] groups = new String[batch.size()];
      for (int i = 0; i < ids.length; i++) {
        ids[i] = batch.get(i).id();
        groups[i] = batch.get(i).groupKey();
      }
      relay.handed(ids, groups);
      lastId = ids[ids.length - 1];
      if (postgres) {
        deleteFull.setArray(1, connection.createArrayOf("bigint", Arrays.stream(ids).boxed().toArray(Long[]::new)));
        checkDeleted(deleteFull.executeUpdate(), ids.length);
      } else if (ids.length == batchSize) {
        delete(deleteFull, ids);
      } else {
        try (PreparedStatement deleteRest = connection.prepareStatement(deleteSql(ids.length))) {
          delete(deleteRest, ids);
        }
      }
      connection.commit();
      committed.handed(ids, groups);
      return true;
    }

    boolean batch(Runnable beforeRelay, Handover committed) throws SQLException {
      return batch(beforeRelay, (ids, groups) -> { }, committed);
    }

    @Override
    public void close() throws SQLException {
      try (claim; read; deleteFull) {
        // closes the statements
      }
    }
  }

  private static String deleteSql(int ids) {
    return "DELETE FROM outbox_message WHERE id IN (" + String.join(", ", Collections.nCopies(ids, "?")) + ")";
  }

  private static void delete(PreparedStatement delete, long[] ids) throws SQLException {
    for (int i = 0; i < ids.length; i++) {
      delete.setLong(i + 1, ids[i]);
    }
    checkDeleted(delete.executeUpdate(), ids.length);
  }

  private static void checkDeleted(int deleted, int read) {
    if (deleted != read) {
      throw new IllegalStateException("The raw drain deleted " + deleted + " of the " + read + " rows it read"
          + " under its partition claim; someone else works the table. Indicates a bug in the benchmark.");
    }
  }

  /**
   * The rows Outboxer wrote for one message of every group of an outbox, from which rows for more
   * messages are made.
   */
  static final class Template {
    private final String outbox;
    private final Object[][] byGroup;
    private final int[] sqlTypes;
    private final LongFunction<byte[]> payloadOfSequence;

    private Template(String outbox, Object[][] byGroup, int[] sqlTypes, LongFunction<byte[]> payloadOfSequence) {
      this.outbox = outbox;
      this.byGroup = byGroup;
      this.sqlTypes = sqlTypes;
      this.payloadOfSequence = payloadOfSequence;
    }

    String outbox() {
      return outbox;
    }

    Object[] rowOf(long group) {
      return byGroup[(int) group];
    }

    int sqlType(int column) {
      return sqlTypes[column];
    }

    byte[] payload(long sequence) {
      return payloadOfSequence.apply(sequence);
    }

    /**
     * Compares rows written by Outboxer with rows written from this template for the same
     * messages, pairwise in id order, on every column but {@link #PER_INSERT}.
     *
     * @return what differs, empty when they match
     */
    static List<String> mismatches(List<Object[]> published, List<Object[]> bulk) {
      List<String> problems = new ArrayList<>();
      if (published.size() != bulk.size()) {
        problems.add(published.size() + " rows were published but " + bulk.size() + " were bulk-inserted");
        return problems;
      }
      for (int row = 0; row < published.size() && problems.size() < 5; row++) {
        for (int i = 0; i < COLUMNS.size(); i++) {
          if (PER_INSERT.contains(COLUMNS.get(i))) {
            continue;
          }
          Object expected = published.get(row)[i];
          Object actual = bulk.get(row)[i];
          if (!Objects.deepEquals(expected, actual)) {
            problems.add("row " + row + ", column " + COLUMNS.get(i) + ": Outboxer wrote " + show(expected)
                + ", the bulk insert wrote " + show(actual));
          }
        }
      }
      return problems;
    }

    private static String show(Object value) {
      if (value instanceof byte[] bytes) {
        return "'" + new String(bytes, java.nio.charset.StandardCharsets.UTF_8) + "'";
      }
      return value == null ? "NULL" : "'" + value + "' (" + value.getClass().getSimpleName() + ")";
    }
  }
}
