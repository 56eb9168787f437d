package dev.outboxer.chaos;

import java.util.ArrayList;
import java.util.List;

/**
 * The named runs of the README.
 *
 * <ul>
 *   <li>{@code short}: the defaults of {@link ChaosSettings} (about 2 minutes: 3 workers, 4
 *       partitions, 3,000 messages over 100 groups, every fault kind for 80 s);</li>
 *   <li>{@code control}: the short run with fencing off, shorter (60 s of faults, 2,000 messages);
 *       every pause also loses its database sessions, as every relay hang does in both runs;</li>
 *   <li>{@code long}: 100,000 messages over 1,000 groups, 3 workers, 8 partitions, 6 minutes of
 *       faults;</li>
 *   <li>{@code local}: the in-process relay ({@code relay=local}), 1,500 messages, 75 s of every
 *       fault kind; 2 % of handler calls fail (one failure rolls back the whole batch, so the table
 *       relay's 10 % would roll back most batches of 10) and 3 % of batches hang;</li>
 *   <li>{@code inbox}: the Kafka relay with a consumer behind the inbox ({@code relay=kafka
 *       inbox=on}), 800 messages, 45 s of every fault kind, max-attempts 10, and the consumer
 *       rewound to its committed offsets every 150 arrivals;</li>
 *   <li>{@code rabbitmq}: the RabbitMQ relay with a consumer behind the inbox ({@code
 *       relay=rabbitmq inbox=on}), sized for {@code mvn verify} on two cores: 2 workers, 600
 *       messages, 40 s of every fault kind, max-attempts infinity (a message can only arrive or
 *       stay pending, never hide as dead), and the consumer's channel closed before an
 *       acknowledgement every 100 arrivals.</li>
 * </ul>
 */
final class Presets {

  private Presets() {}

  static ChaosSettings control() {
    return ChaosSettings.defaults()
        .with("run", "control")
        .with("fencing", "off")
        .with("messages", "2000")
        .with("fault-period", "60s")
        .with("faults", "pause,connections,kill")
        .with("pause-cut-rate", "1")
        .with("fault-every", "3s");
  }

  static ChaosSettings local() {
    return ChaosSettings.defaults()
        .with("run", "local")
        .with("relay", "local")
        .with("messages", "1500")
        .with("fault-period", "75s")
        .with("batch-size", "10")
        .with("fail-rate", "0.02");
  }

  static ChaosSettings inbox() {
    return ChaosSettings.defaults()
        .with("run", "inbox")
        .with("relay", "kafka")
        .with("inbox", "on")
        // A killed worker's Kafka transaction blocks its partition's next producer until the broker
        // aborts it; with 3 attempts a few dozen messages died meanwhile, which the inbox never sees.
        .with("max-attempts", "10")
        .with("messages", "800")
        .with("fault-period", "45s")
        // Copies whatever the faults do: whether a kill lands between a batch's Kafka commit and its
        // database commit is luck (a run saw 5 copies, another 24). With 800 messages, 150 arrivals
        // come at least once, so every run rewinds (a poll can bring many: a run saw 2 rewinds).
        .with("consumer-rewind-every", "150");
  }

  static ChaosSettings rabbitmq() {
    return ChaosSettings.defaults()
        .with("run", "rabbitmq")
        .with("relay", "rabbitmq")
        .with("inbox", "on")
        .with("workers", "2")
        .with("messages", "600")
        .with("fault-period", "40s")
        .with("max-attempts", "infinity")
        // Copies in every run, whatever the faults do: each rewind is one delivery the inbox must drop.
        .with("consumer-rewind-every", "100");
  }

  static ChaosSettings longRun() {
    return ChaosSettings.defaults()
        .with("run", "long")
        .with("messages", "100000")
        .with("groups", "1000")
        .with("partitions", "8")
        .with("publisher-threads", "6")
        .with("fault-period", "6m")
        .with("record-delay", "0ms")
        .with("batch-size", "50")
        .with("drain-timeout", "5m");
  }

  /** The preset named by a {@code preset=} argument (default {@code short}), then the other arguments over it. */
  static ChaosSettings apply(String... args) {
    ChaosSettings settings = ChaosSettings.defaults();
    List<String> rest = new ArrayList<>();
    for (String arg : args) {
      String plain = arg.startsWith("--") ? arg.substring(2) : arg;
      if (plain.startsWith("preset=")) {
        settings = switch (plain.substring(7)) {
          case "short" -> ChaosSettings.defaults();
          case "control" -> control();
          case "long" -> longRun();
          case "local" -> local();
          case "inbox" -> inbox();
          case "rabbitmq" -> rabbitmq();
          default -> throw new IllegalArgumentException(arg + " is not a preset: use short, control, long, local,"
              + " inbox or rabbitmq");
        };
      } else {
        rest.add(plain);
      }
    }
    for (String arg : rest) {
      int eq = arg.indexOf('=');
      if (eq < 1) {
        throw new IllegalArgumentException("Chaos argument '" + arg + "' is not key=value");
      }
      settings = settings.with(arg.substring(0, eq), arg.substring(eq + 1));
    }
    return settings;
  }
}
