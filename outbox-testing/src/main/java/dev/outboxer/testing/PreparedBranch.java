package dev.outboxer.testing;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Base64;
import java.util.UUID;
import javax.sql.XAConnection;
import javax.transaction.xa.XAException;
import javax.transaction.xa.XAResource;
import javax.transaction.xa.Xid;
import org.postgresql.xa.PGXADataSource;

/**
 * A prepared (two-phase) PostgreSQL transaction that holds a partition's row, as the one a worker
 * leaves when its process dies between the two phases of a commit: an XA branch locks the row
 * ({@code FOR UPDATE}, as the claim does; it waits for a batch in flight), is prepared and left.
 * {@link #close()} rolls it back if it is still there; the tests touch no prepared transaction they
 * did not create.
 */
public final class PreparedBranch implements AutoCloseable {

  private final TestDatabase database;
  private final String gid;

  private PreparedBranch(TestDatabase database, String gid) {
    this.database = database;
    this.gid = gid;
  }

  /** Prepares a branch holding the row of the outbox's partition (PostgreSQL only). */
  public static PreparedBranch holdingPartition(TestDatabase database, String outbox, int partition) {
    if (database != TestDatabase.POSTGRESQL) {
      throw new IllegalArgumentException("Prepared branches are made on PostgreSQL only, not on " + database);
    }
    PGXADataSource dataSource = new PGXADataSource();
    dataSource.setURL(database.url());
    dataSource.setUser(database.user());
    dataSource.setPassword(database.password());
    Xid xid = xid();
    String gid = xid.getFormatId() + "_" + Base64.getEncoder().encodeToString(xid.getGlobalTransactionId()) + "_"
        + Base64.getEncoder().encodeToString(xid.getBranchQualifier());
    try {
      XAConnection connection = dataSource.getXAConnection();
      try {
        XAResource resource = connection.getXAResource();
        resource.start(xid, XAResource.TMNOFLAGS);
        try (PreparedStatement statement = connection.getConnection().prepareStatement(
            "SELECT partition_no FROM outbox_partition WHERE outbox = ? AND partition_no = ? FOR UPDATE")) {
          statement.setString(1, outbox);
          statement.setInt(2, partition);
          try (ResultSet rows = statement.executeQuery()) {
            if (!rows.next()) {
              throw new IllegalStateException("Outbox '" + outbox + "' has no partition " + partition + " (yet)");
            }
          }
        }
        resource.end(xid, XAResource.TMSUCCESS);
        resource.prepare(xid);
      } finally {
        connection.close();
      }
    } catch (SQLException | XAException e) {
      throw new IllegalStateException("Could not prepare a branch holding partition " + partition + " of '" + outbox
          + "'", e);
    }
    return new PreparedBranch(database, gid);
  }

  /** The transaction's name in {@code pg_prepared_xacts}, for {@code COMMIT/ROLLBACK PREPARED}. */
  public String gid() {
    return gid;
  }

  /** The database the branch was prepared in ({@code pg_prepared_xacts.database}). */
  public String databaseName() {
    try (Connection connection = database.connect(); Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT current_database()")) {
      rows.next();
      return rows.getString(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Whether the branch is still prepared. */
  public boolean prepared() {
    try (Connection connection = database.connect();
        PreparedStatement statement = connection.prepareStatement("SELECT 1 FROM pg_prepared_xacts WHERE gid = ?")) {
      statement.setString(1, gid);
      try (ResultSet rows = statement.executeQuery()) {
        return rows.next();
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Rolls the branch back if it is still prepared. */
  @Override
  public void close() {
    if (!prepared()) {
      return;
    }
    try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
      statement.execute("ROLLBACK PREPARED '" + gid + "'");
    } catch (SQLException e) {
      throw new IllegalStateException("Could not roll back the prepared branch '" + gid + "'", e);
    }
  }

  private static Xid xid() {
    byte[] global = ("outboxer-test-" + UUID.randomUUID()).getBytes(StandardCharsets.US_ASCII);
    byte[] branch = {1};
    return new Xid() {
      @Override
      public int getFormatId() {
        return 4242;
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
}
