package dev.outboxer.chaos;

import dev.outboxer.spi.Relay;
import dev.outboxer.testing.JdbcTarget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a chaos worker that runs as a Quarkus application ({@code worker=quarkus}, the module
 * outbox-chaos-quarkus) takes from this suite, without this module depending on Quarkus: the
 * worker's configuration from the arguments the orchestrator passes every worker, the table relay
 * with the worker's context, and the line that tells the orchestrator it is ready.
 *
 * <p>It gives the Quarkus worker the same outbox, relay, node id and pool size as {@link
 * WorkerMain}. It does not make the Quarkus worker support every run: only {@code relay=table} on
 * PostgreSQL ({@link ChaosSettings#worker()} refuses the rest); the {@code db-down} fault's
 * Hibernate settings are not applied.
 */
public final class QuarkusWorker {

  /** System property with the path of outbox-chaos-quarkus' {@code quarkus-run.jar}. */
  public static final String JAR_PROPERTY = "outboxer.chaos.quarkus-worker-jar";

  private final ChaosSettings settings;
  private final String node;
  private final int incarnation;
  private final Path dir;
  private final JdbcTarget outboxDatabase;

  private QuarkusWorker(String[] args) {
    this.settings = ChaosSettings.parse(NodeArgs.settings(args));
    this.node = NodeArgs.value(args, "node");
    this.incarnation = Integer.parseInt(NodeArgs.value(args, "incarnation"));
    this.dir = Path.of(NodeArgs.value(args, "dir"));
    settings.worker();
    this.outboxDatabase = new Databases(settings.database()).nodeTarget("chaos-" + node);
  }

  /**
   * Reads the worker's arguments ({@code key=value} settings, {@code node}, {@code incarnation},
   * {@code dir}) and hands the table relay its context, as {@link WorkerMain} does.
   *
   * @throws IllegalArgumentException for arguments a chaos worker cannot run with
   */
  public static QuarkusWorker start(String[] args) {
    QuarkusWorker worker = new QuarkusWorker(args);
    Databases databases = new Databases(worker.settings.database());
    TableRelay.use(new TableRelay.Context(worker.settings, worker.node, worker.incarnation, databases,
        new Destination(databases)));
    return worker;
  }

  /**
   * The worker's configuration, as system properties for Quarkus: the outbox keys {@link
   * NodeConfig#worker} gives every worker, Quarkus' data source on the outbox database (its
   * connections named {@code chaos-<node>}, so that the orchestrator can end them) with the pool
   * size WorkerMain uses, and Narayana's object store and node name per worker.
   */
  public Map<String, String> configuration() {
    Map<String, String> config = new LinkedHashMap<>(NodeConfig.worker(settings, node));
    config.put("quarkus.datasource.jdbc.url", outboxDatabase.url());
    config.put("quarkus.datasource.username", outboxDatabase.user());
    config.put("quarkus.datasource.password", outboxDatabase.password());
    config.put("quarkus.datasource.jdbc.max-size", Integer.toString(settings.partitions() + 4));
    config.put("quarkus.transaction-manager.object-store.directory", dir.resolve("narayana").resolve(node).toString());
    config.put("quarkus.transaction-manager.node-name", "chaos-" + node);
    return config;
  }

  /** The chaos suite's table relay ({@code relay=table}), for the Quarkus application's {@code @Named("table")} producer. */
  public static Relay tableRelay() {
    return new TableRelay();
  }

  /** The line the orchestrator waits for before it counts the worker as started. */
  public String readyLine() {
    return WorkerMain.READY + ": " + node + " incarnation " + incarnation + " pid " + ProcessHandle.current().pid()
        + " (Quarkus, lease " + settings.lease() + ")";
  }

  /** outbox-chaos-quarkus' {@code quarkus-run.jar}: the system property {@value #JAR_PROPERTY}, else the reactor's. */
  static Path jar() {
    String configured = System.getProperty(JAR_PROPERTY);
    Path jar = configured != null ? Path.of(configured)
        : Path.of("outbox-chaos-quarkus", "target", "quarkus-app", "quarkus-run.jar");
    if (configured == null && !Files.exists(jar)) {
      jar = Path.of("..").resolve(jar);
    }
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("worker=quarkus needs the Quarkus worker application " + jar.toAbsolutePath()
          + ", which does not exist: build it with mvn -o package -pl outbox-chaos-quarkus -am -DskipTests, or set -D"
          + JAR_PROPERTY + " to its quarkus-run.jar");
    }
    return jar.toAbsolutePath().normalize();
  }
}
