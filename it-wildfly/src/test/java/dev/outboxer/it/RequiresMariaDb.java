package dev.outboxer.it;

import java.io.IOException;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.net.InetSocketAddress;
import java.net.Socket;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * {@link RequiresPostgres} for MariaDB: skips a test class when MariaDB is not reachable, unless
 * {@code outboxer.test.require-databases} is true (CI), in which case the tests run and fail loudly.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(RequiresMariaDb.Condition.class)
public @interface RequiresMariaDb {

  final class Condition implements ExecutionCondition {

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
      if (Boolean.getBoolean("outboxer.test.require-databases")) {
        return ConditionEvaluationResult.enabled("databases required");
      }
      String host = System.getProperty("outboxer.mariadb.host", "127.0.0.1");
      int port = Integer.getInteger("outboxer.mariadb.port", 3306);
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(host, port), 2_000);
        return ConditionEvaluationResult.enabled("MariaDB reachable at " + host + ":" + port);
      } catch (IOException e) {
        return ConditionEvaluationResult.disabled("MariaDB not reachable at " + host + ":" + port
            + " (set outboxer.test.require-databases=true to fail instead)");
      }
    }
  }
}
