package dev.outboxer.cdi.internal.tx;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.cdi.internal.tx.Transactions.Outcome;
import dev.outboxer.testing.TestDatabase;
import jakarta.transaction.Status;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A worker's back-to-back plain batch transactions ({@link LocalTransaction}) share one connection
 * ({@link PlainConnections}): it is taken and switched to manual commit once, kept only after a
 * commit, and given back when the run ends; each batch still sees what committed before it began.
 */
class PlainConnectionsTest {

  private static final Transactions NO_JTA_TRANSACTION = new Transactions() {
    @Override
    public int status() {
      return Status.STATUS_NO_TRANSACTION;
    }
  };
  /** A reaper that never fires. */
  private static final LocalTransaction.Reaper NEVER = (delay, task) -> () -> { };

  @ParameterizedTest
  @EnumSource(value = TestDatabase.class, names = {"POSTGRESQL", "MARIADB"})
  void back_to_back_batches_commit_on_one_connection_taken_once_and_given_back_when_the_run_ends(TestDatabase database)
      throws Exception {
    CountingDataSource dataSource = emptyTable(database);
    try (PlainConnections connections = new PlainConnections(() -> dataSource)) {
      for (int batch = 1; batch <= 3; batch++) {
        LocalTransaction tx = begin(connections);
        int row = batch;
        tx.call(connection -> insert(connection, row));
        assertThat(tx.commit()).isEqualTo(Outcome.COMMITTED);
        assertThat(rows(database)).as("rows committed after batch " + batch).isEqualTo(batch);
      }
      assertThat(dataSource.taken).as("connections taken from the data source").hasValue(1);
      assertThat(dataSource.autoCommitSwitches).as("auto-commit switched off").hasValue(1);
      assertThat(dataSource.closed).as("connections given back while the run goes on").hasValue(0);
    }
    assertThat(dataSource.closed).as("connections given back when the run ended").hasValue(1);
  }

  @ParameterizedTest
  @EnumSource(value = TestDatabase.class, names = {"POSTGRESQL", "MARIADB"})
  void a_batch_on_the_kept_connection_sees_what_committed_after_the_last_batch(TestDatabase database)
      throws Exception {
    CountingDataSource dataSource = emptyTable(database);
    try (PlainConnections connections = new PlainConnections(() -> dataSource)) {
      LocalTransaction first = begin(connections);
      assertThat(first.call(PlainConnectionsTest::count)).isZero();
      assertThat(first.commit()).isEqualTo(Outcome.COMMITTED);
      try (Connection other = database.connect()) {
        insert(other, 1);
      }
      LocalTransaction second = begin(connections);
      assertThat(second.call(PlainConnectionsTest::count)).as("rows seen by the next batch").isEqualTo(1);
      assertThat(second.commit()).isEqualTo(Outcome.COMMITTED);
      assertThat(dataSource.taken).hasValue(1);
    }
  }

  @ParameterizedTest
  @EnumSource(value = TestDatabase.class, names = {"POSTGRESQL", "MARIADB"})
  void a_connection_whose_batch_rolled_back_failed_or_timed_out_is_closed_and_the_next_batch_takes_a_new_one(
      TestDatabase database) throws Exception {
    CountingDataSource dataSource = emptyTable(database);
    try (PlainConnections connections = new PlainConnections(() -> dataSource)) {
      LocalTransaction rolledBack = begin(connections);
      rolledBack.call(connection -> insert(connection, 1));
      rolledBack.rollback();
      assertThat(dataSource.closed).as("closed after the rollback").hasValue(1);

      LocalTransaction failed = begin(connections);
      try {
        failed.call(connection -> insert(connection, 2, "no_such_column"));
      } catch (SQLException expected) {
        failed.release();
      }
      assertThat(dataSource.closed).as("closed after the failed statement").hasValue(2);

      List<Runnable> reaperTasks = new ArrayList<>();
      LocalTransaction timedOut = LocalTransaction.begin(connections, Duration.ofMillis(1), NO_JTA_TRANSACTION,
          (delay, task) -> {
            reaperTasks.add(task);
            return () -> { };
          });
      timedOut.call(connection -> insert(connection, 3));
      reaperTasks.forEach(Runnable::run);
      assertThat(timedOut.commit()).isEqualTo(Outcome.ROLLED_BACK);
      assertThat(dataSource.closed).as("closed after the timeout").hasValue(3);

      LocalTransaction next = begin(connections);
      next.call(connection -> insert(connection, 4));
      assertThat(next.commit()).isEqualTo(Outcome.COMMITTED);
      assertThat(dataSource.taken).as("connections taken: one per batch after a failure").hasValue(4);
    }
    assertThat(rows(database)).as("only the committed batch's row").isEqualTo(1);
  }

  /** The test's table, new and empty, and a data source of new connections to its database. */
  private static CountingDataSource emptyTable(TestDatabase database) throws SQLException {
    database.assumeAvailable();
    try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
      statement.execute("DROP TABLE IF EXISTS plain_connections_test");
      statement.execute("CREATE TABLE plain_connections_test (id INT PRIMARY KEY)");
    }
    return new CountingDataSource(database);
  }

  /** A batch's transaction with a timeout that never passes. */
  private static LocalTransaction begin(PlainConnections connections) throws SQLException {
    return LocalTransaction.begin(connections, Duration.ofSeconds(30), NO_JTA_TRANSACTION, NEVER);
  }

  private static Void insert(Connection connection, int id) throws SQLException {
    return insert(connection, id, "id");
  }

  private static Void insert(Connection connection, int id, String column) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.executeUpdate("INSERT INTO plain_connections_test (" + column + ") VALUES (" + id + ")");
    }
    return null;
  }

  private static int count(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM plain_connections_test")) {
      rows.next();
      return rows.getInt(1);
    }
  }

  private static int rows(TestDatabase database) throws SQLException {
    try (Connection connection = database.connect()) {
      return count(connection);
    }
  }

  /** New connections to the test database, counted: taken, switched to manual commit, closed. */
  private static final class CountingDataSource implements DataSource {
    final AtomicInteger taken = new AtomicInteger();
    final AtomicInteger autoCommitSwitches = new AtomicInteger();
    final AtomicInteger closed = new AtomicInteger();
    private final TestDatabase database;

    CountingDataSource(TestDatabase database) {
      this.database = database;
    }

    @Override
    public Connection getConnection() throws SQLException {
      Connection connection = database.connect();
      taken.incrementAndGet();
      return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
          (proxy, method, args) -> {
            if (method.getName().equals("setAutoCommit") && Boolean.FALSE.equals(args[0])) {
              autoCommitSwitches.incrementAndGet();
            } else if (method.getName().equals("close")) {
              closed.incrementAndGet();
            }
            try {
              return method.invoke(connection, args);
            } catch (InvocationTargetException e) {
              throw e.getCause();
            }
          });
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
      throw new SQLFeatureNotSupportedException();
    }

    @Override
    public PrintWriter getLogWriter() {
      return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) { }

    @Override
    public void setLoginTimeout(int seconds) { }

    @Override
    public int getLoginTimeout() {
      return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
      throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
      throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
      return false;
    }
  }
}
