package dev.outboxer.cdi.internal.work;

import dev.outboxer.cdi.internal.config.OutboxSettings;
import dev.outboxer.spi.Failures;
import dev.outboxer.spi.Setting;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Says at WARNING that a relay threw, outlived its {@code relay-timeout} or returned leaving records
 * unreported, the three ways of breaking the relay contract that fail records (see {@link
 * dev.outboxer.spi.Relay}). At most once a minute per outbox, partition and kind, at FINE the other
 * times: a broker outage makes every batch throw, and the log must show it without being flooded.
 * The reports of unknown, repeated or late records are warned of by {@link ReportingRelayBatch}.
 */
final class RelayWarnings {

  private static final Logger LOG = Logger.getLogger(BatchProcessor.class.getName());
  private static final long INTERVAL_NANOS = Duration.ofMinutes(1).toNanos();

  private final Map<String, Long> lastWarned = new ConcurrentHashMap<>();
  /** Monotonic nanoseconds: the interval is real elapsed time, not wall-clock time. Settable for tests. */
  private final java.util.function.LongSupplier nanos;

  RelayWarnings() {
    this(System::nanoTime);
  }

  RelayWarnings(java.util.function.LongSupplier nanos) {
    this.nanos = nanos;
  }

  /**
   * The relay threw, outlived its timeout or returned leaving records unreported: the records it did
   * not report count as failed (attempt counted, backoff applied); the operator hears of it.
   */
  void brokenRelay(OutboxSettings settings, int partition, Throwable thrown, boolean timedOut,
      ReportingRelayBatch.Outcomes outcomes, boolean claimLost) {
    if (claimLost) {
      return; // said already, with its own WARNING
    }
    List<Long> unreported = outcomes.failed().stream().filter(failure -> !failure.reported())
        .map(failure -> failure.record().id()).toList();
    String kind;
    String what;
    if (timedOut) {
      kind = "timeout";
      what = "the relay '" + settings.relay() + "' did not return within " + settings.key("relay-timeout") + "="
          + Setting.formatDuration(settings.relayTimeout()) + " (it was interrupted; reports after that are ignored)";
    } else if (thrown != null) {
      kind = "threw";
      what = "the relay '" + settings.relay() + "' threw " + Failures.describe(thrown);
    } else if (!unreported.isEmpty()) {
      kind = "unreported";
      what = "the relay '" + settings.relay() + "' returned without reporting an outcome for every record it was"
          + " handed (a bug in the relay: it must confirm or fail each record it attempts)";
    } else {
      return;
    }
    String key = settings.name() + '/' + partition + '/' + kind;
    long now = nanos.getAsLong();
    Long last = lastWarned.get(key);
    boolean loud = last == null || now - last >= INTERVAL_NANOS;
    if (loud) {
      lastWarned.put(key, now);
    }
    // An Error (out of memory, a class missing, an assertion) comes with its stack trace: it points at a bug or a
    // broken deployment, not at an outage. The stand-in can be logged whatever the relay's throwable does.
    Throwable trace = thrown instanceof Error && !timedOut ? Failures.loggable(thrown) : null;
    LOG.log(loud ? Level.WARNING : Level.FINE, "Outbox '" + settings.name() + "', partition " + partition + ": "
        + what + "; " + (unreported.isEmpty() ? "every record had been reported"
        : "its unreported message(s) " + abbreviate(unreported) + " count as failed and are retried after their"
        + " backoff") + (loud ? " (said at most once a minute per partition; the other times at FINE)" : ""), trace);
  }

  private static String abbreviate(List<Long> ids) {
    return ids.size() <= 10 ? ids.toString() : ids.subList(0, 10) + " and " + (ids.size() - 10) + " more";
  }

}
