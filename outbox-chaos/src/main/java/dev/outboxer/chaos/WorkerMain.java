package dev.outboxer.chaos;

import dev.outboxer.testing.JdbcTarget;
import dev.outboxer.testing.OutboxTestContainer;

/**
 * A worker process: one Outboxer node ({@code outbox.worker=executor}, {@code
 * outbox.node-id=<node>}) on the run's outbox and relay, until it is killed. Prints {@value
 * #READY} once its workers run. Its connections to the outbox database carry the
 * application name {@code chaos-<node>} (PostgreSQL) so the orchestrator can end them.
 *
 * <p>Arguments: the run's settings as {@code key=value}, then {@code node=worker-<n>}, {@code
 * incarnation=<k>} and {@code dir=<run directory>}.
 */
public final class WorkerMain {

  static final String READY = "chaos worker ready";
  /** System property set for an incarnation started while its database is down. */
  static final String DATABASE_DOWN = "outboxer.chaos.database-down";

  private WorkerMain() {}

  public static void main(String[] args) throws Exception {
    ChaosSettings settings = ChaosSettings.parse(NodeArgs.settings(args));
    String node = NodeArgs.value(args, "node");
    int incarnation = Integer.parseInt(NodeArgs.value(args, "incarnation"));
    Databases databases = new Databases(settings.database());
    JdbcTarget outboxDatabase = databases.nodeTarget("chaos-" + node);
    TableRelay.Context context =
        new TableRelay.Context(settings, node, incarnation, databases, new Destination(databases));
    TableRelay.use(context);
    LocalHandler.use(context);
    JmsBeans.broker = settings.broker();
    boolean xa = settings.relay().equals("jms");
    if (xa) {
      XaRecovery.configure();
      // Before the workers start: see XaRecovery.start.
      XaRecovery.start(outboxDatabase, settings.broker());
    }

    OutboxTestContainer.Builder builder = OutboxTestContainer.builder(outboxDatabase)
        .config(NodeConfig.worker(settings, node))
        .beans(NodeArgs.relayBeans(settings))
        .poolSize(settings.partitions() + 4);
    if (Boolean.getBoolean(DATABASE_DOWN)) {
      // Started while its database is down (fault db-down): Hibernate, the application's JPA, must boot
      // without reading the database, as an application that starts before its database must configure it.
      builder.jpaProperty("hibernate.dialect", databases.postgres() ? "org.hibernate.dialect.PostgreSQLDialect"
              : "org.hibernate.dialect.MariaDBDialect")
          .jpaProperty("hibernate.boot.allow_jdbc_metadata_access", "false")
          .jpaProperty("hibernate.hbm2ddl.auto", "none");
    }
    OutboxTestContainer container = builder.start();
    Runtime.getRuntime().addShutdownHook(new Thread(container::close, "chaos-worker-shutdown"));
    System.out.println(READY + ": " + node + " incarnation " + incarnation + " pid " + ProcessHandle.current().pid()
        + (NodeConfig.coreKnowsLease() ? " (lease " + settings.lease() + ")" : " (the core has no lease setting yet)"));
    System.out.flush();
    while (true) {
      Thread.sleep(60_000);
    }
  }
}
