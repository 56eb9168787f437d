package dev.outboxer.it;

import dev.outboxer.spi.SqlScripts;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Like {@link FreshPostgresSchema}, then creates the schema the way production does, before the
 * application starts: Outboxer's shipped script (META-INF/outboxer/ddl/postgresql.sql, from
 * outbox-cdi on the test class path) and the sample's own (META-INF/sql/orders.sql). For
 * deployments in which Outboxer starts before anything of the application could create it (an EAR
 * with the library in lib/).
 */
public class PreparedPostgresSchema extends FreshPostgresSchema {

  @Override
  protected void afterDrop(Statement statement) throws SQLException {
    for (String script : new String[] {outboxerScript(), sampleScript()}) {
      for (String sql : SqlScripts.statements(script)) {
        statement.execute(sql);
      }
    }
  }

  private static String outboxerScript() {
    try (InputStream in = PreparedPostgresSchema.class.getClassLoader()
        .getResourceAsStream("META-INF/outboxer/ddl/postgresql.sql")) {
      if (in == null) {
        throw new IllegalStateException("META-INF/outboxer/ddl/postgresql.sql is not on the test class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String sampleScript() {
    return OrdersArchives.sampleResource("META-INF/sql/orders.sql");
  }
}
