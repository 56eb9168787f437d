package dev.outboxer.cdi.internal.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/** Work on the JDBC connection of the current transaction. */
@FunctionalInterface
public interface SqlWork<T> {
  T apply(Connection connection) throws SQLException;
}
