package dev.outboxer.postgresql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import javax.sql.XAConnection;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.xa.PGXADataSource;

/**
 * A branch is prepared, then its session is ended by {@code pg_terminate_backend} (what an admin
 * shutdown, a failover or an operator does) before the transaction manager commits it. pgjdbc
 * reports the failed {@code COMMIT PREPARED} (SQLSTATE 57P01) as {@code XAER_RMERR}, which tells the
 * transaction manager the resource manager is broken: it gives the branch up, and the branch stays
 * prepared, holding its locks, until someone commits or rolls it back by hand. Through {@link
 * RecoverablePGXADataSource} the same failure is {@code XAER_RMFAIL} (the resource manager is
 * unavailable): the transaction manager keeps the branch and finishes it at recovery, on a new
 * connection, as the test does.
 *
 * <p>Needs the local PostgreSQL (127.0.0.1:5432, postgres, {@code max_prepared_transactions > 0});
 * runs in the tests' own database {@code <OUTBOXER_TEST_DATABASE_PREFIX>_outbox_postgresql_xa} and
 * rolls back only the prepared transactions it created.
 */
class TerminatedSessionTest {

  private static final String DATABASE =
      System.getenv().getOrDefault("OUTBOXER_TEST_DATABASE_PREFIX", "outboxer_test") + "_outbox_postgresql_xa";
  private static final String SERVER = "jdbc:postgresql://127.0.0.1:5432/";
  private static final int FORMAT = 0x4f42; // "OB"

  private final List<Xid> created = new ArrayList<>();

  @BeforeAll
  static void database() throws SQLException {
    try (Connection server = connect("postgres"); Statement statement = server.createStatement()) {
      try (ResultSet rows = statement.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + DATABASE + "'")) {
        if (!rows.next()) {
          statement.execute("CREATE DATABASE " + DATABASE);
        }
      }
      try (ResultSet rows = statement.executeQuery("SHOW max_prepared_transactions")) {
        rows.next();
        Assumptions.assumeTrue(rows.getInt(1) > 0, "max_prepared_transactions is 0: no two-phase commit");
      }
    } catch (SQLException e) {
      if (Boolean.getBoolean("outboxer.test.require-databases")) {
        throw e;
      }
      Assumptions.abort("PostgreSQL is not reachable: " + e.getMessage());
    }
    try (Connection connection = connect(DATABASE); Statement statement = connection.createStatement()) {
      statement.execute("CREATE TABLE IF NOT EXISTS xa_order (id VARCHAR(64) PRIMARY KEY)");
    }
  }

  /** Rolls back the branches this test prepared and left (a failed assertion), and no other. */
  @AfterEach
  void rollBackLeftovers() throws SQLException {
    try (Connection connection = connect(DATABASE); Statement statement = connection.createStatement()) {
      for (String gid : preparedGids()) {
        if (created.stream().anyMatch(xid -> gid.equals(gid(xid)))) {
          statement.execute("ROLLBACK PREPARED '" + gid + "'");
        }
      }
    }
  }

  @Test
  void pgjdbcGivesUpTheBranchOfATerminatedSession() throws Exception {
    PGXADataSource plain = dataSource(new PGXADataSource());
    Xid xid = prepareAndTerminate(plain);

    XAException failure = commitOnTheSameConnection(xid);

    // What the transaction manager sees today: RMERR, the branch is given up (Narayana: "XAException.XAER_RMERR").
    assertThat(failure.errorCode).as("pgjdbc's error code, %s", failure).isEqualTo(XAException.XAER_RMERR);
    assertThat(preparedGids()).contains(gid(xid));
  }

  @Test
  void theWrapperReportsTheResourceManagerUnavailableAndRecoveryFinishesTheBranch() throws Exception {
    RecoverablePGXADataSource recoverable = dataSource(new RecoverablePGXADataSource());
    Xid xid = prepareAndTerminate(recoverable);

    XAException failure = commitOnTheSameConnection(xid);

    assertThat(failure.errorCode).as("the wrapper's error code, %s", failure).isEqualTo(XAException.XAER_RMFAIL);
    assertThat(preparedGids()).contains(gid(xid));

    // What the transaction manager's recovery does: a new connection, recover, commit.
    XAConnection recovery = recoverable.getXAConnection();
    try {
      XAResource resource = recovery.getXAResource();
      Xid[] found = resource.recover(XAResource.TMSTARTRSCAN | XAResource.TMENDRSCAN);
      assertThat(Arrays.stream(found).map(TerminatedSessionTest::gid)).contains(gid(xid));
      resource.commit(xid, false);
    } finally {
      recovery.close();
    }
    assertThat(preparedGids()).doesNotContain(gid(xid));
    try (Connection connection = connect(DATABASE);
        PreparedStatement statement = connection.prepareStatement("SELECT 1 FROM xa_order WHERE id = ?")) {
      statement.setString(1, new String(xid.getGlobalTransactionId(), StandardCharsets.US_ASCII));
      try (ResultSet rows = statement.executeQuery()) {
        assertThat(rows.next()).as("the committed branch's row").isTrue();
      }
    }
  }

  private XAConnection connection;
  private XAResource resource;

  /** Inserts a row in a new branch, prepares it and terminates the session that prepared it. */
  private Xid prepareAndTerminate(PGXADataSource dataSource) throws Exception {
    connection = dataSource.getXAConnection();
    resource = connection.getXAResource();
    Connection sql = connection.getConnection();
    int pid;
    try (Statement statement = sql.createStatement(); ResultSet rows = statement.executeQuery("SELECT pg_backend_pid()")) {
      rows.next();
      pid = rows.getInt(1);
    }
    Xid xid = xid();
    resource.start(xid, XAResource.TMNOFLAGS);
    try (PreparedStatement insert = sql.prepareStatement("INSERT INTO xa_order (id) VALUES (?)")) {
      insert.setString(1, new String(xid.getGlobalTransactionId(), StandardCharsets.US_ASCII));
      insert.executeUpdate();
    }
    resource.end(xid, XAResource.TMSUCCESS);
    assertThat(resource.prepare(xid)).isEqualTo(XAResource.XA_OK);
    created.add(xid);
    try (Connection admin = connect(DATABASE); Statement statement = admin.createStatement()) {
      try (ResultSet rows = statement.executeQuery("SELECT pg_terminate_backend(" + pid + ")")) {
        rows.next();
        assertThat(rows.getBoolean(1)).as("terminated").isTrue();
      }
      for (int i = 0; i < 100; i++) {
        try (ResultSet rows = statement.executeQuery("SELECT 1 FROM pg_stat_activity WHERE pid = " + pid)) {
          if (!rows.next()) {
            break;
          }
        }
        Thread.sleep(50);
      }
    }
    return xid;
  }

  private XAException commitOnTheSameConnection(Xid xid) throws SQLException {
    try {
      return catchThrowableOfType(XAException.class, () -> resource.commit(xid, false));
    } finally {
      connection.close();
    }
  }

  private static <T extends PGXADataSource> T dataSource(T dataSource) {
    dataSource.setURL(SERVER + DATABASE);
    dataSource.setUser("postgres");
    dataSource.setPassword("");
    return dataSource;
  }

  private static Connection connect(String database) throws SQLException {
    return DriverManager.getConnection(SERVER + database, "postgres", "");
  }

  private static List<String> preparedGids() throws SQLException {
    List<String> gids = new ArrayList<>();
    try (Connection connection = connect(DATABASE);
        PreparedStatement statement = connection.prepareStatement(
            "SELECT gid FROM pg_prepared_xacts WHERE database = ?")) {
      statement.setString(1, DATABASE);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          gids.add(rows.getString(1));
        }
      }
    }
    return gids;
  }

  private static Xid xid() {
    byte[] global = ("ob-" + UUID.randomUUID()).substring(0, 32).getBytes(StandardCharsets.US_ASCII);
    byte[] branch = ByteBuffer.allocate(4).putInt(1).array();
    return new Xid() {
      @Override
      public int getFormatId() {
        return FORMAT;
      }

      @Override
      public byte[] getGlobalTransactionId() {
        return global.clone();
      }

      @Override
      public byte[] getBranchQualifier() {
        return branch.clone();
      }
    };
  }

  /** pgjdbc's gid: format id, then global id and branch qualifier in Base64, joined by '_'. */
  static String gid(Xid xid) {
    java.util.Base64.Encoder base64 = java.util.Base64.getEncoder();
    return xid.getFormatId() + "_" + base64.encodeToString(xid.getGlobalTransactionId()) + "_"
        + base64.encodeToString(xid.getBranchQualifier());
  }
}
