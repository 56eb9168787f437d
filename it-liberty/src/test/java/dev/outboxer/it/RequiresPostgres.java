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
 * Skips a test class when PostgreSQL is not reachable, unless {@code outboxer.test.require-databases}
 * is true (CI), in which case the tests run and fail loudly. Evaluated on the client before
 * Arquillian deploys anything, so a skipped class costs no deployment (JUnit evaluates it again
 * inside the server, where it finds PostgreSQL as the client did).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(RequiresPostgres.Condition.class)
public @interface RequiresPostgres {

  final class Condition implements ExecutionCondition {

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
      if (Boolean.getBoolean("outboxer.test.require-databases")) {
        return ConditionEvaluationResult.enabled("databases required");
      }
      String host = System.getProperty("outboxer.pg.host", "127.0.0.1");
      int port = Integer.getInteger("outboxer.pg.port", 5432);
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(host, port), 2_000);
        return ConditionEvaluationResult.enabled("PostgreSQL reachable at " + host + ":" + port);
      } catch (IOException e) {
        return ConditionEvaluationResult.disabled("PostgreSQL not reachable at " + host + ":" + port
            + " (set outboxer.test.require-databases=true to fail instead)");
      }
    }
  }
}
