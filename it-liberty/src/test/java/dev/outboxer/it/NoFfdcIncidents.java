package dev.outboxer.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails a test class during which the Open Liberty server wrote an FFDC incident ({@code
 * logs/ffdc/ffdc_*.log}): Open Liberty writes one for an exception that reaches its runtime
 * uncaught, and the failures these classes cause on purpose (a refusing relay, retries, dead
 * letters, an unknown outbox name, 401 and 403 answers) are expected ones that Outboxer and the
 * sample handle, so they must leave none (issue 13).
 *
 * <p>One exception is let through, by name: the sample's {@code SimulatedFailure}, which the
 * rollback scenarios throw out of a {@code @Transactional} method on purpose (the exception is what
 * rolls the transaction back, and the shared contract expects the caller to see it). Open Liberty's
 * transaction interceptor writes an incident for every exception leaving such a method, whoever
 * throws it; that is the server's behaviour for an application's exception, not an error of Outboxer.
 *
 * <p>The incidents already there when the class starts (of classes before it on the same server)
 * are not counted; the failure names each new file and its first lines. Register it before {@code
 * ArquillianExtension}, so that the check runs after the undeployment too. Runs on the client only
 * ({@code outboxer.it.client}); the server's directory comes from {@code outboxer.it.server.dir}
 * (set by the pom).
 */
public class NoFfdcIncidents implements BeforeAllCallback, AfterAllCallback {

  /** The incident file's line naming the exception, for the one the rollback scenarios throw on purpose. */
  static final String ON_PURPOSE = "Exception = dev.outboxer.sample.SimulatedFailure";

  private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(NoFfdcIncidents.class);

  @Override
  public void beforeAll(ExtensionContext context) {
    if (Boolean.getBoolean("outboxer.it.client")) {
      context.getStore(NAMESPACE).put("before", incidents());
    }
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (!Boolean.getBoolean("outboxer.it.client")) {
      return;
    }
    @SuppressWarnings("unchecked")
    Set<Path> before = context.getStore(NAMESPACE).get("before", Set.class);
    Set<Path> written = incidents();
    written.removeAll(before);
    written.removeIf(NoFfdcIncidents::onPurpose);
    assertThat(written.stream().map(NoFfdcIncidents::describe).toList())
        .as("FFDC incidents written by the server during " + context.getDisplayName() + " (in " + ffdc() + ")")
        .isEmpty();
  }

  private static Path ffdc() {
    String server = System.getProperty("outboxer.it.server.dir");
    assertThat(server).as("outboxer.it.server.dir (set by it-liberty's pom)").isNotBlank();
    return Path.of(server, "logs", "ffdc");
  }

  private static Set<Path> incidents() {
    Path directory = ffdc();
    if (!Files.isDirectory(directory)) {
      return new TreeSet<>();
    }
    try (Stream<Path> files = Files.list(directory)) {
      return files.filter(file -> file.getFileName().toString().startsWith("ffdc_"))
          .collect(Collectors.toCollection(TreeSet::new));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean onPurpose(Path incident) {
    try (Stream<String> lines = Files.lines(incident)) {
      return lines.limit(5).anyMatch(line -> line.trim().equals(ON_PURPOSE));
    } catch (IOException e) {
      return false;
    }
  }

  private static String describe(Path incident) {
    try (Stream<String> lines = Files.lines(incident)) {
      List<String> head = lines.limit(12).toList();
      return incident.getFileName() + ":\n  " + String.join("\n  ", head);
    } catch (IOException e) {
      return incident.getFileName() + " (unreadable: " + e + ")";
    }
  }
}
