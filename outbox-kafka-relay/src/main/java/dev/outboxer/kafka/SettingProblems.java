package dev.outboxer.kafka;

import dev.outboxer.OutboxConfigurationException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
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

  /**
   * The candidate nearest to a misspelt word, if it is near enough to be a likely typo: at most a
   * third of the word's length apart (1 to 3 edits, a swap of two letters counting once).
   */
  static String nearest(String word, Collection<String> candidates) {
    String lower = word.toLowerCase(Locale.ROOT);
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String candidate : candidates) {
      int distance = distance(lower, candidate.toLowerCase(Locale.ROOT));
      if (distance < bestDistance || distance == bestDistance && candidate.compareTo(best) < 0) {
        best = candidate;
        bestDistance = distance;
      }
    }
    int allowed = Math.max(1, Math.min(3, word.length() / 3));
    return bestDistance <= allowed ? best : null;
  }

  /** Optimal string alignment distance (Damerau-Levenshtein without repeated edits). */
  static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
