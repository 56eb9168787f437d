package dev.outboxer.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The command line of a chaos process: the run's settings as {@code key=value}, plus the
 * process's own keys ({@code dir}, {@code node}, {@code incarnation}, {@code kind}).
 */
final class NodeArgs {

  private static final Set<String> OWN_KEYS = Set.of("dir", "node", "incarnation", "kind");

  private NodeArgs() {}

  static String value(String[] args, String key) {
    for (String arg : args) {
      if (arg.startsWith(key + "=")) {
        return arg.substring(key.length() + 1);
      }
    }
    throw new IllegalArgumentException("The chaos process needs the argument " + key + "=...; got " + List.of(args));
  }

  static String[] settings(String[] args) {
    List<String> settings = new ArrayList<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (eq < 0 || !OWN_KEYS.contains(arg.substring(0, eq))) {
        settings.add(arg);
      }
    }
    return settings.toArray(String[]::new);
  }

  /** The CDI beans the relay of a run needs in a node. */
  static Class<?>[] relayBeans(ChaosSettings settings) {
    return switch (settings.relay()) {
      case "table" -> new Class<?>[] {TableRelay.class};
      case "jms" -> new Class<?>[] {JmsBeans.class, BrokerBatchWatch.class};
      case "kafka", "rabbitmq" -> new Class<?>[] {BrokerBatchWatch.class};
      case "local" -> new Class<?>[] {LocalHandler.class};
      default -> new Class<?>[0];
    };
  }
}
