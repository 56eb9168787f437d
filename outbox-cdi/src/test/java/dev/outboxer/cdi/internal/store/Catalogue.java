package dev.outboxer.cdi.internal.store;

import dev.outboxer.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What a database schema holds, read from the database's own catalogue: one entry per table,
 * column (position, type, size, nullability, default, collation), constraint, index (columns in
 * order, uniqueness, and PostgreSQL's partial-index predicate) and sequence (type, start,
 * increment, bounds, cache; SQLite: the counter row standing in for it, with its value). Two schemas made by different routes are the same schema when their
 * catalogues are equal. Names the database generates (H2's primary-key indexes) are replaced by
 * what they belong to, so that the order in which objects were created does not matter.
 *
 * @param objects "kind name" to its definition, sorted by key
 */
record Catalogue(SortedMap<String, String> objects) {

  static Catalogue read(Connection connection, TestDatabase database, Collection<String> ignoredTables)
      throws SQLException {
    List<String> ignored = ignoredTables.stream().map(table -> table.toLowerCase(Locale.ROOT)).toList();
    SortedMap<String, String> objects = new TreeMap<>();
    for (String query : queries(database)) {
      try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(query)) {
        ResultSetMetaData meta = rows.getMetaData();
        while (rows.next()) {
          // Every query yields: kind, the table it belongs to, a name unique within the kind (qualified by the
          // table where the database lets two tables use one name), then the columns of the definition.
          String kind = rows.getString(1);
          String table = rows.getString(2).toLowerCase(Locale.ROOT);
          if (ignored.contains(table)) {
            continue;
          }
          String key = kind + " " + rows.getString(3).toLowerCase(Locale.ROOT);
          List<String> definition = new ArrayList<>();
          for (int column = 4; column <= meta.getColumnCount(); column++) {
            String value = rows.getString(column);
            // SQLite's stored CREATE statements keep the script's line breaks and indentation, which a tool may change.
            value = database == TestDatabase.SQLITE && value != null ? value.replaceAll("\\s+", " ").trim() : value;
            definition.add(meta.getColumnLabel(column).toLowerCase(Locale.ROOT) + "=" + value);
          }
          String previous = objects.put(key, String.join(", ", definition));
          if (previous != null) {
            // An index over several columns: one row per column, in key order.
            objects.put(key, previous + "; " + String.join(", ", definition));
          }
        }
      }
    }
    for (SortedMap.Entry<String, String> sequence : sequences(connection, database).entrySet()) {
      objects.put("sequence " + sequence.getKey(), sequence.getValue());
    }
    return new Catalogue(objects);
  }

  /** Whether the catalogue holds an object, e.g. {@code "table outbox_message"}. */
  boolean has(String object) {
    return objects.containsKey(object);
  }

  @Override
  public String toString() {
    StringBuilder text = new StringBuilder();
    objects.forEach((key, value) -> text.append(key).append(": ").append(value).append('\n'));
    return text.toString();
  }

  private static List<String> queries(TestDatabase database) {
    return switch (database) {
      case POSTGRESQL -> List.of(
          "SELECT 'table', table_name, table_name FROM information_schema.tables"
              + " WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
          "SELECT 'column', table_name, table_name || '.' || column_name, ordinal_position, data_type,"
              + " character_maximum_length, numeric_precision, datetime_precision, is_nullable, column_default,"
              + " collation_name FROM information_schema.columns WHERE table_schema = current_schema()",
          "SELECT 'constraint', c.conrelid::regclass::text, c.conrelid::regclass::text || '.' || c.conname,"
              + " c.contype, pg_get_constraintdef(c.oid) FROM pg_constraint c WHERE c.connamespace = current_schema()::regnamespace",
          // indexdef is the whole CREATE INDEX statement: columns in order, method and WHERE predicate.
          "SELECT 'index', tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()");
      // SQLite keeps each object's CREATE statement: compared with its whitespace collapsed (see read), besides
      // the columns and the indexes as SQLite understood them.
      case SQLITE -> List.of(
          "SELECT 'table', name, name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
          "SELECT 'column', m.name, m.name || '.' || p.name, p.cid AS position, p.type, p.\"notnull\", p.dflt_value,"
              + " p.pk FROM sqlite_master m JOIN pragma_table_info(m.name) p"
              + " WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
          "SELECT 'index', m.name, m.name || '.' || l.name, l.\"unique\", l.origin, l.partial, i.seqno, i.name AS column_name"
              + " FROM sqlite_master m JOIN pragma_index_list(m.name) l JOIN pragma_index_info(l.name) i"
              + " WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY m.name, l.name, i.seqno",
          "SELECT 'statement', tbl_name, type || ' ' || name, sql FROM sqlite_master"
              + " WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'");
      case MARIADB -> List.of(
          "SELECT 'table', table_name, table_name, engine, table_collation FROM information_schema.tables"
              + " WHERE table_schema = DATABASE() AND table_type = 'BASE TABLE'",
          "SELECT 'column', table_name, CONCAT(table_name, '.', column_name), ordinal_position, column_type,"
              + " is_nullable, column_default, character_set_name, collation_name FROM information_schema.columns"
              + " WHERE table_schema = DATABASE()",
          "SELECT 'constraint', table_name, CONCAT(table_name, '.', constraint_name), constraint_type"
              + " FROM information_schema.table_constraints WHERE table_schema = DATABASE()",
          "SELECT 'index', table_name, CONCAT(table_name, '.', index_name), non_unique, seq_in_index, column_name,"
              + " sub_part, index_type FROM information_schema.statistics WHERE table_schema = DATABASE()"
              + " ORDER BY table_name, index_name, seq_in_index");
      case H2 -> List.of(
          "SELECT 'table', table_name, table_name FROM information_schema.tables"
              + " WHERE table_schema = SCHEMA() AND table_type = 'BASE TABLE'",
          "SELECT 'column', table_name, table_name || '.' || column_name, ordinal_position, data_type,"
              + " character_maximum_length, numeric_precision, datetime_precision, is_nullable, column_default"
              + " FROM information_schema.columns WHERE table_schema = SCHEMA()",
          "SELECT 'constraint', table_name, table_name || '.' || constraint_name, constraint_type"
              + " FROM information_schema.table_constraints WHERE table_schema = SCHEMA()",
          // H2 names a primary key's index PRIMARY_KEY_<n>, n depending on what was created before it.
          "SELECT 'index', i.table_name, CASE WHEN i.index_type_name = 'PRIMARY KEY' THEN i.table_name || '.primary key'"
              + " ELSE i.index_name END, i.index_type_name, c.ordinal_position, c.column_name, c.ordering_specification"
              + " FROM information_schema.indexes i JOIN information_schema.index_columns c"
              + " ON c.index_schema = i.index_schema AND c.index_name = i.index_name AND c.table_name = i.table_name"
              + " WHERE i.table_schema = SCHEMA() ORDER BY i.table_name, i.index_name, c.ordinal_position");
    };
  }

  /** Sequence name to definition: type, start, increment, bounds, cycle and cache (never the current value). */
  private static SortedMap<String, String> sequences(Connection connection, TestDatabase database) throws SQLException {
    SortedMap<String, String> sequences = new TreeMap<>();
    switch (database) {
      case POSTGRESQL -> query(connection, "SELECT sequencename, data_type, start_value, min_value, max_value,"
          + " increment_by, cycle, cache_size FROM pg_sequences WHERE schemaname = current_schema()", sequences);
      case H2 -> query(connection, "SELECT sequence_name, data_type, start_value, minimum_value, maximum_value,"
          + " increment, cycle_option, cache FROM information_schema.sequences WHERE sequence_schema = SCHEMA()",
          sequences);
      case SQLITE -> {
        // No sequences: a counter row each in outbox_sequence, compared with its starting value.
        boolean counters;
        try (ResultSet table = connection.getMetaData().getTables(null, null, SchemaManager.SQLITE_COUNTERS, null)) {
          counters = table.next();
        }
        if (counters) {
          query(connection, "SELECT name, last_value FROM " + SchemaManager.SQLITE_COUNTERS, sequences);
        }
      }
      case MARIADB -> {
        // MariaDB before 11.5 has no information_schema.sequences: a sequence is a table of type SEQUENCE.
        SortedMap<String, String> names = new TreeMap<>();
        query(connection, "SELECT table_name, table_type FROM information_schema.tables"
            + " WHERE table_schema = DATABASE() AND table_type = 'SEQUENCE'", names);
        for (String name : names.keySet()) {
          try (Statement statement = connection.createStatement();
              ResultSet rows = statement.executeQuery("SHOW CREATE SEQUENCE " + name)) {
            rows.next();
            sequences.put(name, rows.getString(2));
          }
        }
      }
    }
    return sequences;
  }

  /** First column lower-cased as the key, the others as "label=value" pairs. */
  private static void query(Connection connection, String sql, Map<String, String> into) throws SQLException {
    try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
      ResultSetMetaData meta = rows.getMetaData();
      while (rows.next()) {
        List<String> definition = new ArrayList<>();
        for (int column = 2; column <= meta.getColumnCount(); column++) {
          definition.add(meta.getColumnLabel(column).toLowerCase(Locale.ROOT) + "=" + rows.getString(column));
        }
        into.put(rows.getString(1).toLowerCase(Locale.ROOT), String.join(", ", definition));
      }
    }
  }
}
