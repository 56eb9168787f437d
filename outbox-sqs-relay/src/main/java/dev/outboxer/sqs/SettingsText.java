package dev.outboxer.sqs;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reading setting values: durations, and the known key nearest to a misspelt one. */
final class SettingsText {

  private static final Pattern SIMPLE_DURATION =
      Pattern.compile("(\\d{1,12})\\s*(ms|s|m|h|d)", Pattern.CASE_INSENSITIVE);

  private SettingsText() {}

  /** {@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 1d} or ISO-8601; else null. */
  static Duration parseDuration(String text) {
    Matcher simple = SIMPLE_DURATION.matcher(text);
    if (simple.matches()) {
      long amount = Long.parseLong(simple.group(1));
      return switch (simple.group(2).toLowerCase(Locale.ROOT)) {
        case "ms" -> Duration.ofMillis(amount);
        case "s" -> Duration.ofSeconds(amount);
        case "m" -> Duration.ofMinutes(amount);
        case "h" -> Duration.ofHours(amount);
        default -> Duration.ofDays(amount);
      };
    }
    try {
      return Duration.parse(text);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /** The known key closest to a misspelt one (Levenshtein distance). */
  static String nearest(String key, Set<String> keys) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String known : new TreeSet<>(keys)) {
      int distance = distance(key, known);
      if (distance < bestDistance) {
        best = known;
        bestDistance = distance;
      }
    }
    return best;
  }

  private static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
