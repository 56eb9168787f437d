package dev.outboxer.chaos;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * One JVM of a run ({@code java -cp <this module's class path> -Xmx256m <main> args...}, or {@code
 * java -Xmx256m ... -jar <jar> args...} for a runnable jar such as the Quarkus worker's), its log
 * appended to {@code <run dir>/<name>.log} across restarts. Signals go through {@code kill}
 * ({@code -STOP}, {@code -CONT}); kill -9 is {@link Process#destroyForcibly()}.
 */
final class ChildProcess {

  private final String name;
  private final Path log;
  private final List<String> jvmOptions;
  private final String mainClass;
  /** A runnable jar ({@code java -jar}) instead of {@link #mainClass} on this module's class path, or null. */
  private final Path jar;
  private final List<String> args;
  private Process process;
  private int incarnation;
  /** What the java command runs under, such as {@code ip netns exec <namespace>} (empty: nothing). */
  private volatile List<String> launcher = List.of();
  /** JVM options for the next incarnation only, after the usual ones (a later -D wins). */
  private volatile List<String> nextOptions = List.of();

  ChildProcess(String name, Path dir, List<String> jvmOptions, Class<?> mainClass, List<String> args) {
    this.name = name;
    this.log = dir.resolve(name + ".log");
    this.jvmOptions = jvmOptions;
    this.mainClass = mainClass.getName();
    this.jar = null;
    this.args = args;
  }

  /** A process that runs {@code java <jvmOptions> -jar <jar> args...} (e.g. a Quarkus application's quarkus-run.jar). */
  ChildProcess(String name, Path dir, List<String> jvmOptions, Path jar, List<String> args) {
    this.name = name;
    this.log = dir.resolve(name + ".log");
    this.jvmOptions = jvmOptions;
    this.mainClass = null;
    this.jar = jar;
    this.args = args;
  }

  String name() {
    return name;
  }

  Path log() {
    return log;
  }

  int incarnation() {
    return incarnation;
  }

  /** Runs every incarnation under this command (e.g. {@code ip netns exec chaos-ns}), which must exec java. */
  void launcher(List<String> command) {
    launcher = List.copyOf(command);
  }

  /** JVM options for the next incarnation only (e.g. another database URL). */
  void nextStartOptions(List<String> options) {
    nextOptions = List.copyOf(options);
  }

  /** Starts a new incarnation, passing {@code incarnation=<n>} after the arguments. */
  synchronized void start() throws IOException {
    incarnation++;
    List<String> command = new ArrayList<>(launcher);
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    if (jar == null) {
      command.add("-cp");
      command.add(classPath());
    }
    command.addAll(jvmOptions);
    command.addAll(nextOptions);
    nextOptions = List.of();
    if (jar == null) {
      command.add(mainClass);
    } else {
      command.add("-jar");
      command.add(jar.toString());
    }
    command.addAll(args);
    command.add("incarnation=" + incarnation);
    Files.writeString(log, "=== " + name + " incarnation " + incarnation + "\n",
        java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
    process = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .start();
  }

  synchronized long pid() {
    return process.pid();
  }

  synchronized boolean alive() {
    return process != null && process.isAlive();
  }

  /** kill -9, and waits until the process is gone. */
  void kill() throws InterruptedException {
    Process current;
    synchronized (this) {
      current = process;
    }
    if (current != null && current.isAlive()) {
      signal(current.pid(), "CONT");
      current.destroyForcibly();
      current.waitFor(30, TimeUnit.SECONDS);
    }
  }

  void pause() throws IOException, InterruptedException {
    signal(pid(), "STOP");
  }

  void resume() throws IOException, InterruptedException {
    signal(pid(), "CONT");
  }

  /** A clean stop (SIGTERM, shutdown hooks run), then kill -9 after {@code grace}. */
  void stop(Duration grace) throws InterruptedException {
    Process current;
    synchronized (this) {
      current = process;
    }
    if (current == null || !current.isAlive()) {
      return;
    }
    signal(current.pid(), "CONT");
    current.destroy();
    if (!current.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
      current.destroyForcibly();
      current.waitFor(30, TimeUnit.SECONDS);
    }
  }

  /** Waits for the process to end by itself. */
  boolean waitFor(Duration timeout) throws InterruptedException {
    return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  synchronized int exitValue() {
    return process.exitValue();
  }

  /** Whether the log holds {@code marker} for the current incarnation. */
  boolean logged(String marker) throws IOException {
    String text = Files.exists(log) ? Files.readString(log) : "";
    int start = text.lastIndexOf("=== " + name + " incarnation " + incarnation + "\n");
    return start >= 0 && text.indexOf(marker, start) >= 0;
  }

  private static void signal(long pid, String signal) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true).start();
      kill.getInputStream().readAllBytes();
      kill.waitFor(10, TimeUnit.SECONDS);
    } catch (IOException e) {
      throw new IllegalStateException("Could not send SIG" + signal + " to process " + pid + " with 'kill': " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static volatile String classPath;

  /**
   * This module's class path, for the child JVMs. Under exec:java the classes come from an isolated
   * URLClassLoader; under surefire from {@code java.class.path}, possibly a manifest-only jar whose
   * {@code Class-Path} is expanded here.
   */
  static String classPath() {
    if (classPath != null) {
      return classPath;
    }
    Set<String> entries = new LinkedHashSet<>();
    for (ClassLoader loader = ChildProcess.class.getClassLoader(); loader != null; loader = loader.getParent()) {
      if (loader instanceof URLClassLoader urls) {
        for (URL url : urls.getURLs()) {
          try {
            entries.add(Path.of(url.toURI()).toString());
          } catch (URISyntaxException | IllegalArgumentException e) {
            // not a file
          }
        }
      }
    }
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      // Maven's own launcher, when running under exec:java.
      if (!entry.isBlank() && !entry.contains("plexus-classworlds")) {
        entries.add(entry);
      }
    }
    Set<String> expanded = new LinkedHashSet<>();
    for (String entry : entries) {
      expanded.add(entry);
      if (entry.endsWith(".jar") && entry.contains("surefire")) {
        expanded.addAll(manifestClassPath(Path.of(entry)));
      }
    }
    // The inbox is the orchestrator's consumer's (inbox=on). In a node its CDI producer would start
    // with the container and fail it, finding no data source for the inbox.
    expanded.removeIf(ChildProcess::isInbox);
    classPath = String.join(File.pathSeparator, expanded);
    return classPath;
  }

  /** outbox-inbox, as an installed jar or as the reactor's classes directory. */
  static boolean isInbox(String entry) {
    Path path = Path.of(entry);
    String name = path.getFileName() == null ? "" : path.getFileName().toString();
    return name.matches("outbox-inbox-[^/]*\\.jar") || entry.replace('\\', '/').contains("/outbox-inbox/target/");
  }

  private static List<String> manifestClassPath(Path jar) {
    List<String> entries = new ArrayList<>();
    try (JarFile file = new JarFile(jar.toFile())) {
      Manifest manifest = file.getManifest();
      String value = manifest == null ? null : manifest.getMainAttributes().getValue("Class-Path");
      if (value != null) {
        for (String item : value.trim().split("\\s+")) {
          try {
            entries.add(Path.of(jar.getParent().toUri().resolve(item)).toString());
          } catch (IllegalArgumentException e) {
            // an entry that is not a file URI
          }
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("Cannot read the class path of " + jar, e);
    }
    return entries;
  }
}
