package dev.outboxer.quarkus.deployment;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.testing.TestDatabase;
import io.quarkus.test.QuarkusUnitTest;

/**
 * A Quarkus application under test on the local PostgreSQL, in the tests' own database
 * ({@code <prefix>_outbox_quarkus_deployment}, created on first use and reset before the
 * application starts), with dev services off: Hibernate ORM and Outboxer on Quarkus' default
 * Agroal data source, Narayana for the transactions.
 */
final class QuarkusTestApplication {

  private QuarkusTestApplication() {}

  /** The application with these classes; the schema is reset (Outboxer's DDL and the test table) before it starts. */
  static QuarkusUnitTest on(TestDatabase database, Class<?>... classes) {
    return on(database, () -> { }, classes);
  }

  /**
   * As {@link #on(TestDatabase, Class[])}, and {@code beforeStart} runs after the schema reset,
   * before the application is built: where a test sets up its broker's topics or queues and adds
   * the configuration only known then (ports, URLs) with {@link QuarkusUnitTest#overrideConfigKey}.
   */
  static QuarkusUnitTest on(TestDatabase database, Runnable beforeStart, Class<?>... classes) {
    return new QuarkusUnitTest()
        .withApplicationRoot(jar -> jar.addClasses(classes).addClass(QuarkusTestApplication.class))
        .setBeforeAllCustomizer(() -> {
          database.assumeAvailable();
          database.resetSchema();
          beforeStart.run();
        })
        .overrideConfigKey("quarkus.devservices.enabled", "false")
        // A free port for the HTTP server (health, metrics) instead of 8081, which other builds on the machine may hold
        .overrideConfigKey("quarkus.http.test-port", "0")
        .overrideConfigKey("quarkus.datasource.db-kind", database.configValue())
        .overrideConfigKey("quarkus.datasource.jdbc.url", database.url())
        .overrideConfigKey("quarkus.datasource.username", database.user())
        .overrideConfigKey("quarkus.datasource.password", database.password())
        .overrideConfigKey("quarkus.hibernate-orm.schema-management.strategy", "none")
        .overrideConfigKey("quarkus.log.category.\"dev.outboxer\".level", "WARN")
        // quarkus-opentelemetry is on the tests' class path (QuarkusTracingTest): no OTLP exporter sending to a
        // collector that is not there; QuarkusTracingTest exports to a bean of its own.
        .overrideConfigKey("quarkus.otel.exporter.otlp.enabled", "false");
  }

  /**
   * Outboxer's configuration failure in the chain of a failed start, or null. By class name: the
   * application's classes, Outboxer's exception among them, come from Quarkus' class loader.
   */
  static Throwable configurationProblem(Throwable failure) {
    Throwable problem = failure;
    while (problem != null && !problem.getClass().getName().equals(OutboxConfigurationException.class.getName())) {
      problem = problem.getCause();
    }
    return problem;
  }
}
