package dev.outboxer.local;

import static dev.outboxer.local.LocalRelayProvider.HANDLER;
import static dev.outboxer.local.LocalRelayProvider.NAME;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.spi.RelayContext;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The {@code outbox.<name>.local.*} settings of one outbox, checked.
 *
 * @param handlerNames the bean names listed in {@code handler}, in order; empty if it is not set
 */
record LocalSettings(List<String> handlerNames) {

  static final Set<String> KEYS = Set.of(HANDLER);

  /**
   * Reads the settings, adding a problem (naming key, value and fix) for each one it cannot accept.
   */
  static LocalSettings read(RelayContext context, List<OutboxConfigurationException> problems) {
    for (String key : new TreeSet<>(context.properties().keySet())) {
      if (!KEYS.contains(key)) {
        String fullKey = context.fullKey(NAME, key);
        String nearest = nearest(key, KEYS);
        problems.add(new OutboxConfigurationException(fullKey, fullKey + " is not a setting of the local relay"
            + (nearest != null ? ": did you mean " + context.fullKey(NAME, nearest) + "?" : ".")
            + " Known keys under outbox." + context.outbox() + ".local.: " + new TreeSet<>(KEYS) + "."));
      }
    }
    List<String> names = new ArrayList<>();
    context.property(HANDLER).ifPresent(value -> {
      for (String name : value.split(",")) {
        String trimmed = name.strip();
        if (trimmed.isEmpty()) {
          String fullKey = context.fullKey(NAME, HANDLER);
          problems.add(new OutboxConfigurationException(fullKey, fullKey + "=" + value + " has an empty bean name:"
              + " list the @Named names of handler beans, separated by commas"));
        } else if (!names.contains(trimmed)) {
          names.add(trimmed);
        }
      }
    });
    return new LocalSettings(List.copyOf(names));
  }

  /** The candidate nearest to {@code word}, if it is near enough to be a likely typo; else null. */
  static String nearest(String word, Collection<String> candidates) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String candidate : new TreeSet<>(candidates)) {
      int distance = distance(word.toLowerCase(Locale.ROOT), candidate.toLowerCase(Locale.ROOT));
      if (distance < bestDistance) {
        best = candidate;
        bestDistance = distance;
      }
    }
    int allowed = Math.max(2, Math.min(4, word.length() / 2));
    return bestDistance <= allowed ? best : null;
  }

  /** Edit distance in which swapping two neighbouring letters counts once (the commonest typo). */
  static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    Arrays.setAll(d[0], j -> j);
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
