package dev.outboxer.kafka;

import dev.outboxer.OutboxConfigurationException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Collects every problem of one outbox's Kafka settings, so that a deployment reports them all at
 * once (the first as the exception, the others suppressed) instead of one per attempt.
 */
final class SettingProblems {

  private final List<OutboxConfigurationException> problems = new ArrayList<>();
  private final Set<String> keys = new HashSet<>();

  void add(String fullKey, String message) {
    problems.add(new OutboxConfigurationException(fullKey, message));
    keys.add(fullKey);
  }

  /** Whether a problem was already reported for the key (later rules then skip it). */
  boolean has(String fullKey) {
    return keys.contains(fullKey);
  }

  boolean isEmpty() {
    return problems.isEmpty();
  }

  /** Throws the first problem, with the others suppressed; does nothing if there is none. */
  void throwIfAny() {
    if (problems.isEmpty()) {
      return;
    }
    OutboxConfigurationException first = problems.get(0);
    for (OutboxConfigurationException more : problems.subList(1, problems.size())) {
      first.addSuppressed(more);
    }
    throw first;
  }
}
