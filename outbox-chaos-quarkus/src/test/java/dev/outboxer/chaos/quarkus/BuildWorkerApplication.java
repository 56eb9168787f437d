package dev.outboxer.chaos.quarkus;

import io.quarkus.bootstrap.app.AugmentResult;
import io.quarkus.bootstrap.app.CuratedApplication;
import io.quarkus.bootstrap.app.QuarkusBootstrap;
import java.nio.file.Path;

/**
 * Builds the Quarkus worker's {@code target/quarkus-app/quarkus-run.jar} (the fast jar) with Quarkus'
 * bootstrap, as the quarkus-maven-plugin's build goal would: that plugin is not in the offline
 * repository the build uses, Quarkus' bootstrap and the deployment artifacts are (QuarkusUnitTest
 * uses them). Run by the exec-maven-plugin in the package phase.
 *
 * <p>Arguments: the module's directory, its classes directory, its target directory.
 */
public final class BuildWorkerApplication {

  private BuildWorkerApplication() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      throw new IllegalArgumentException("BuildWorkerApplication needs <module dir> <classes dir> <target dir>, got "
          + args.length + " arguments");
    }
    Path project = Path.of(args[0]);
    Path classes = Path.of(args[1]);
    Path target = Path.of(args[2]);
    try (CuratedApplication application = QuarkusBootstrap.builder()
        .setApplicationRoot(classes)
        .setProjectRoot(project)
        .setTargetDirectory(target)
        .setMode(QuarkusBootstrap.Mode.PROD)
        .setLocalProjectDiscovery(true)
        .setIsolateDeployment(true)
        .setBaseName("outbox-chaos-quarkus")
        .build()
        .bootstrap()) {
      AugmentResult result = application.createAugmentor().createProductionApplication();
      System.out.println("Quarkus chaos worker built: " + result.getJar().getPath());
    }
  }
}
