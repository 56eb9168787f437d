package dev.outboxer.postgresql;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.XAConnection;
import org.postgresql.core.BaseConnection;
import org.postgresql.xa.PGXADataSource;

/**
 * pgjdbc's {@link PGXADataSource} whose branches survive the end of the session that prepared them.
 * Configure it in place of {@code org.postgresql.xa.PGXADataSource}; it takes the same properties.
 *
 * <h2>Why</h2>
 * When the session of a prepared branch ends before its second phase (the backend is terminated by
 * {@code pg_terminate_backend}, an admin shutdown, a failover, a proxy or firewall cutting the
 * connection), pgjdbc reports the failed {@code COMMIT PREPARED} or {@code ROLLBACK PREPARED} as
 * {@code XAER_RMERR}, "the resource manager is broken": the SQLSTATE the server sends then (57P01
 * {@code admin_shutdown}, 57P02 {@code crash_shutdown}, 57P03 {@code cannot_connect_now}) is not one
 * of the connection failures pgjdbc maps to {@code XAER_RMFAIL}. A transaction manager gives up a
 * branch that answered {@code XAER_RMERR} (Narayana marks it heuristic), so the branch stays
 * prepared for good and holds its row locks: Outboxer's partition row, among others, so the
 * partition stops until someone runs {@code COMMIT PREPARED} or {@code ROLLBACK PREPARED} by hand.
 *
 * <p>This data source's {@link javax.transaction.xa.XAResource} reports a failure of {@code
 * prepare}, {@code commit}, {@code rollback} or {@code recover} whose cause has SQLSTATE 57P01,
 * 57P02, 57P03 or class 08 (connection exception) as {@code XAER_RMFAIL}, "the resource manager is
 * unavailable": the transaction manager keeps the branch in its log and finishes it at its next
 * recovery pass on a new connection (the way the outcome is decided does not change: a branch whose
 * transaction was decided for commit is committed). Every other failure is passed on unchanged.
 *
 * <h2>Configuration</h2>
 * Put this module's jar next to the PostgreSQL driver (the same library or server module) and name
 * this class where the XA data source class is named:
 * <ul>
 *   <li>Open Liberty: {@code <jdbcDriver libraryRef="postgresql"
 *       xaDataSourceClassName="dev.outboxer.postgresql.RecoverablePGXADataSource"/>} with the jar in
 *       the library's {@code <fileset>}, and the data source's settings as generic {@code
 *       <properties serverName=… portNumber=… databaseName=… user=… password=…/>}
 *       ({@code properties.postgresql} belongs to Liberty's own PostgreSQL support).</li>
 *   <li>WildFly: a JDBC driver with {@code
 *       xa-datasource-class=dev.outboxer.postgresql.RecoverablePGXADataSource} in a module holding
 *       both jars, and the XA data source with {@code xa-datasource-properties} as for pgjdbc.</li>
 *   <li>Agroal, or any pool that takes an {@link javax.sql.XADataSource} class name: the same.</li>
 * </ul>
 * Nothing else changes. The class has no dependency but pgjdbc (42.x).
 */
public class RecoverablePGXADataSource extends PGXADataSource {

  private static final long serialVersionUID = 1L;

  @Override
  public XAConnection getXAConnection(String user, String password) throws SQLException {
    // As PGXADataSource does, with the XA connection that maps the failures.
    Connection connection = getConnection(user, password);
    return new RecoverablePGXAConnection((BaseConnection) connection);
  }

  @Override
  public String getDescription() {
    return "XA DataSource whose branches survive a terminated session (Outboxer), over " + super.getDescription();
  }
}
