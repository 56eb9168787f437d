package dev.outboxer.chaos.quarkus;

import dev.outboxer.chaos.QuarkusWorker;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;

/**
 * The chaos suite's worker as a Quarkus application ({@code worker=quarkus}): one Outboxer node
 * ({@code outbox.worker=executor}, the run's outbox on the table relay) on Quarkus' Agroal data
 * source, Narayana and managed executor, until it is killed. It takes the arguments the
 * orchestrator gives every worker, sets them as system properties before Quarkus reads its
 * configuration, and prints the ready line once Quarkus (and with it Outboxer's workers) started.
 *
 * <p>It guarantees the same outbox configuration as the Java SE worker ({@code WorkerMain}); it does
 * not run the other relays, MariaDB or the {@code db-down} fault's start-up without a database.
 */
@QuarkusMain
public class ChaosWorkerApplication implements QuarkusApplication {

  private static volatile QuarkusWorker worker;

  /** Reads the orchestrator's arguments, then runs Quarkus until it is stopped or killed. */
  public static void main(String... args) {
    worker = QuarkusWorker.start(args);
    worker.configuration().forEach(System::setProperty);
    Quarkus.run(ChaosWorkerApplication.class, args);
  }

  @Override
  public int run(String... args) {
    System.out.println(worker.readyLine());
    System.out.flush();
    Quarkus.waitForExit();
    return 0;
  }
}
