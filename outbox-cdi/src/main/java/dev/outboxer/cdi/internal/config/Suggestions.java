package dev.outboxer.cdi.internal.config;

import java.util.Collection;
import java.util.Locale;
import java.util.Optional;

/** The nearest known word to a misspelt one, for "did you mean" in error messages. */
public final class Suggestions {

  private Suggestions() {}

  /** The candidate closest to {@code word} by edit distance, if it is close enough to be a likely typo. */
  public static Optional<String> nearest(String word, Collection<String> candidates) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    String lower = word.toLowerCase(Locale.ROOT);
    for (String candidate : candidates) {
      int distance = distance(lower, candidate.toLowerCase(Locale.ROOT));
      if (distance < bestDistance) {
        best = candidate;
        bestDistance = distance;
      }
    }
    int allowed = Math.max(1, Math.min(3, word.length() / 3));
    return best != null && bestDistance <= allowed ? Optional.of(best) : Optional.empty();
  }

  /** " (did you mean 'x'?)" or nothing. */
  public static String didYouMean(String word, Collection<String> candidates) {
    return nearest(word, candidates).map(found -> " Did you mean '" + found + "'?").orElse("");
  }

  /** Damerau-Levenshtein distance (optimal string alignment): a swap of two letters counts once. */
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
        if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
