package dev.outboxer.benchmark;

import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Row 7: a fresh Outboxer node drains the largest backlog in a child JVM limited to a 256 MB heap.
 * The parent fills the backlog; the child ({@link #main}) drains it and prints one result line.
 */
final class MemoryCheck {

  static final String HEAP = "-Xmx256m";
  private static final String RESULT = "MEMORY-RESULT ";

  private MemoryCheck() {}

  /**
   * What the child reported, with the fill's time and the message table's size on disk after the
   * fill and after the drain (a backlog of millions is as much a question of disk as of heap).
   */
  record Outcome(long committed, long backlog, double seconds, boolean finished, long peakHeapMb, long maxHeapMb,
      double fillSeconds, TableSizes filled, TableSizes drained) {

    String describe() {
      return String.format(Locale.ROOT, "%s: a fresh Outboxer node in a child JVM with %s relayed %,d of %,d messages"
              + " (1 partition) in %.1f s (%,.0f msg/s); peak heap used %d MB of %d MB; filled in %.1f s;"
              + " outbox_message on disk after the fill %s (heap %s, indexes %s), after the drain %s",
          finished ? "finished" : "DID NOT FINISH", HEAP, committed, backlog, seconds,
          seconds > 0 ? committed / seconds : 0.0, peakHeapMb, maxHeapMb, fillSeconds, TableSizes.mb(filled.totalBytes()),
          TableSizes.mb(filled.heapBytes()), TableSizes.mb(filled.indexBytes()), TableSizes.mb(drained.totalBytes()));
    }
  }

  /** Fills the backlog, runs the child and waits for its result. */
  static Outcome run(OutboxerNodes nodes) throws Exception {
    BenchSettings settings = nodes.settings();
    long fillStart = System.nanoTime();
    nodes.fill(OutboxerNodes.ONE_PARTITION, settings.memoryBacklog());
    double fillSeconds = (System.nanoTime() - fillStart) / 1e9;
    TableSizes filled = TableSizes.read(settings.database());
    List<String> command = new ArrayList<>(List.of(
        new File(System.getProperty("java.home"), "bin/java").getPath(), HEAP, "-XX:+UseSerialGC",
        "-cp", classpath()));
    Properties forwarded = new Properties();
    for (Map.Entry<Object, Object> property : System.getProperties().entrySet()) {
      String key = property.getKey().toString();
      if (key.startsWith("bench.") || key.startsWith("outboxer.test.")) {
        forwarded.setProperty(key, property.getValue().toString());
      }
    }
    forwarded.setProperty("bench.db", settings.database().configValue());
    forwarded.setProperty("bench.groups", String.valueOf(settings.groups()));
    forwarded.setProperty("bench.batch-size", String.valueOf(settings.batchSize()));
    forwarded.setProperty("bench.memory-max-seconds", String.valueOf(settings.maxMemoryDrain().toSeconds()));
    forwarded.setProperty("bench.memory-backlog", String.valueOf(settings.memoryBacklog()));
    forwarded.setProperty("org.jboss.logging.provider", "jdk");
    // Its own Narayana identity and object store: two JVMs must not share them.
    String store = System.getProperty("java.io.tmpdir") + "/outboxer-narayana-bench-child";
    forwarded.setProperty("ObjectStoreEnvironmentBean.objectStoreDir", store);
    forwarded.setProperty("com.arjuna.ats.arjuna.objectstore.objectStoreDir", store);
    forwarded.setProperty("CoreEnvironmentBean.nodeIdentifier", "outboxer-bench-child");
    forwarded.forEach((key, value) -> command.add("-D" + key + "=" + value));
    command.add(MemoryCheck.class.getName());

    Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
    List<String> output = new ArrayList<>();
    Thread reader = new Thread(() -> {
      try {
        for (String line : new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
          output.add(line);
        }
      } catch (IOException ignored) {
        // the child is gone; what it printed so far is in output
      }
    }, "memory-check-output");
    reader.setDaemon(true);
    reader.start();
    long limit = settings.maxMemoryDrain().toSeconds() + OutboxerContender.START_TIMEOUT.toSeconds() + 60;
    if (!child.waitFor(limit, TimeUnit.SECONDS)) {
      child.destroyForcibly();
      throw new IllegalStateException("The 256 MB child JVM did not end within " + limit + " s");
    }
    reader.join(10_000);
    for (String line : output) {
      if (line.startsWith(RESULT)) {
        return parse(line.substring(RESULT.length()), fillSeconds, filled, TableSizes.read(settings.database()));
      }
    }
    List<String> tail = output.subList(Math.max(0, output.size() - 15), output.size());
    throw new IllegalStateException("The 256 MB child JVM ended with exit code " + child.exitValue() + " and no result;"
        + " its last lines: " + String.join(" / ", tail));
  }

  private static Outcome parse(String text, double fillSeconds, TableSizes filled, TableSizes drained) {
    Properties values = new Properties();
    for (String pair : text.trim().split(" ")) {
      int equals = pair.indexOf('=');
      values.setProperty(pair.substring(0, equals), pair.substring(equals + 1));
    }
    return new Outcome(Long.parseLong(values.getProperty("committed")), Long.parseLong(values.getProperty("backlog")),
        Double.parseDouble(values.getProperty("seconds")), Boolean.parseBoolean(values.getProperty("finished")),
        Long.parseLong(values.getProperty("peakHeapMb")), Long.parseLong(values.getProperty("maxHeapMb")), fillSeconds,
        filled, drained);
  }

  /**
   * The classpath of this program: under {@code mvn exec:java} the classes come from the plugin's
   * class loader (java.class.path is Maven's own), under surefire and {@code java -cp} from
   * java.class.path.
   */
  static String classpath() {
    Set<String> entries = new LinkedHashSet<>();
    for (ClassLoader loader = MemoryCheck.class.getClassLoader(); loader != null; loader = loader.getParent()) {
      if (loader instanceof URLClassLoader urls) {
        for (URL url : urls.getURLs()) {
          if (url.getProtocol().equals("file")) {
            entries.add(new File(url.getPath()).getPath());
          }
        }
      }
    }
    entries.addAll(List.of(System.getProperty("java.class.path").split(File.pathSeparator)));
    return String.join(File.pathSeparator, entries);
  }

  /** The child: drains the backlog the parent filled, prints {@value #RESULT} with the outcome, exits. */
  public static void main(String[] args) throws Exception {
    Benchmark.quietLogging();
    BenchSettings settings = BenchSettings.from(System.getProperties());
    RawJdbc raw = new RawJdbc(settings.database());
    DrainOutcome outcome = OutboxerContender.drainFilled(settings, raw, OutboxerNodes.ONE_PARTITION,
        settings.memoryBacklog(), null, settings.maxMemoryDrain());
    long peak = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        peak += pool.getPeakUsage().getUsed();
      }
    }
    System.out.println(RESULT + "committed=" + outcome.committed() + " backlog=" + outcome.backlog() + " seconds="
        + outcome.seconds() + " finished=" + outcome.finished() + " peakHeapMb=" + peak / (1024 * 1024) + " maxHeapMb="
        + Runtime.getRuntime().maxMemory() / (1024 * 1024));
    System.out.flush();
    System.exit(0);
  }
}
