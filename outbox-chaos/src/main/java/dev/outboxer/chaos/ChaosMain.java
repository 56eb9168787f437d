package dev.outboxer.chaos;

/**
 * Runs one chaos experiment from the command line and prints the checker's table; exits 0 when the
 * run passed, 1 when the checker found violations.
 *
 * <pre>
 * mvnh -pl outbox-chaos exec:java -Dexec.args="preset=long relay=table database=postgresql"
 * </pre>
 *
 * Arguments are the {@link ChaosSettings} keys as {@code key=value}; {@code preset=short|control|long}
 * first applies a named set of values (see {@link Presets}).
 */
public final class ChaosMain {

  private ChaosMain() {}

  public static void main(String[] args) throws Exception {
    ChaosSettings settings = Presets.apply(args);
    Report report = ChaosRun.run(settings);
    System.out.println(report.table());
    System.exit(report.passed() ? 0 : 1);
  }
}
