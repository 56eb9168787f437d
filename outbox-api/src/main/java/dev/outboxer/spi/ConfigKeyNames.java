package dev.outboxer.spi;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Configuration key names as MicroProfile Config reports them, turned into the keys they stand
 * for; and the one "did you mean" rule of every Outboxer module. Every module that enumerates
 * {@code Config.getPropertyNames()} to find outboxes or misspelt keys goes through this class, so
 * that a deployment configured by environment variables is checked like one configured by a
 * properties file.
 *
 * <h2>Environment variables</h2>
 * MicroProfile Config finds a key in the environment by its exact name, then with every
 * character other than a letter or digit replaced by {@code _}, then that upper-cased: {@code
 * OUTBOX_ORDERS_MAX_ATTEMPTS=3} is the value of {@code outbox.orders.max-attempts}. But that
 * mapping only works when a key is <em>looked up</em>; {@code getPropertyNames()} reports the
 * variable's own name ({@code OUTBOX_ORDERS_MAX_ATTEMPTS}), and SmallRye Config also a lower-cased
 * dotted form of it ({@code outbox.orders.max.attempts}), which is no key at all. {@link
 * #resolve} maps such names back to the keys they stand for, given the keys (and key patterns) the
 * caller knows: an environment name stands for a key when the key's {@linkplain #environmentName
 * environment name} equals it, ignoring case.
 *
 * <p>What it guarantees:
 * <ul>
 *   <li>A key spelt as a dotted key is reported as it is: its checks and messages are the same as
 *       without this class. A dotted name that matches no key and is not the lower-cased, dotted
 *       twin of a reported environment name stays as written, so a misspelt key in a file is still
 *       reported.</li>
 *   <li>An environment name (letters, digits and {@code _} only) that starts with {@code OUTBOX_}
 *       either stands for a key the caller knows or is listed as {@linkplain
 *       Resolved#unmatched() unmatched}, for the caller to refuse, naming it as written (the core
 *       refuses one near a known key or naming a configured outbox, and leaves others such as
 *       Kubernetes' {@code OUTBOX_SERVICE_HOST} alone); other environment names ({@code PATH},
 *       {@code HOME}) are ignored.</li>
 *   <li>The value of a resolved key is read by looking the <em>key</em> up, so MicroProfile
 *       Config's precedence (system property over environment over file) holds.</li>
 * </ul>
 *
 * <p>What it does not guarantee:
 * <ul>
 *   <li>Outbox names. The {@code <name>} part of {@code OUTBOX_<NAME>_MAX_ATTEMPTS} is matched,
 *       ignoring case and treating {@code -} as {@code _}, against the outbox names spelt in dotted
 *       keys; an outbox configured <em>only</em> by environment variables gets the lower-cased
 *       name ({@code OUTBOX_ORDERS_RELAY=jms} declares the outbox {@code orders}). A name with
 *       characters other than letters, digits and {@code _} (such as {@code my-orders}) cannot be
 *       written as an environment variable; declare it in a dotted key and its other keys may then
 *       be environment variables ({@code OUTBOX_MY_ORDERS_BATCH_SIZE}).</li>
 *   <li>Ambiguity. Where an environment name fits several keys, a key of a declared outbox wins,
 *       then the longest key ({@code OUTBOX_A_MAX_POLL_INTERVAL} is {@code max-poll-interval} of
 *       outbox {@code a}, not {@code poll-interval} of outbox {@code a_max}).</li>
 *   <li>Keys under a prefix ({@code outbox.<name>.jms.*}): the part after the prefix keeps the
 *       environment spelling, upper-cased ({@code outbox.orders.jms.CONNECTION_FACTORY}); the
 *       module that owns the prefix maps it to its own keys, with {@link #canonicalProperties}.</li>
 *   <li>A dotted key and its lower-cased twin in the same file ({@code max-attempts} and {@code
 *       max.attempts}) while the environment sets the key too: the twin is taken for the
 *       environment's and not reported.</li>
 * </ul>
 */
public final class ConfigKeyNames {

  /** Stands for an outbox name in a key pattern: {@code outbox.<name>.max-attempts}. */
  public static final String NAME = "<name>";
  /** Ends a key pattern that stands for every key under a prefix: {@code outbox.<name>.jms.*}. */
  public static final String ANY = "*";

  private static final String PREFIX = "outbox.";
  private static final String ENV_PREFIX = "OUTBOX_";
  private static final Pattern ENV_STYLE = Pattern.compile("[A-Za-z0-9_]+");
  private static final Pattern UPPER_ENV_STYLE = Pattern.compile("[A-Z0-9_]*[A-Z][A-Z0-9_]*");
  private static final Pattern DOTTED_RELAY_KEY = Pattern.compile("outbox\\.([^.]+)\\.relay");
  private static final Pattern ENV_RELAY_KEY = Pattern.compile("OUTBOX_(.+)_RELAY");

  private ConfigKeyNames() {}

  /**
   * The name MicroProfile Config looks a key up by in the environment: every character other than
   * an ASCII letter or digit replaced by {@code _}, upper-cased. {@code outbox.orders.max-attempts}
   * gives {@code OUTBOX_ORDERS_MAX_ATTEMPTS}.
   *
   * @param key a configuration key
   * @return its environment variable name
   */
  public static String environmentName(String key) {
    StringBuilder name = new StringBuilder(key.length());
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      name.append(c < 128 && Character.isLetterOrDigit(c) ? Character.toUpperCase(c) : '_');
    }
    return name.toString();
  }

  /**
   * @param name a name as reported or written
   * @return whether it is spelt as an environment variable: letters, digits and {@code _} only,
   *     at least one {@code _} (so {@code OUTBOX_NODE_ID}, not {@code outbox.node-id})
   */
  public static boolean isEnvironmentName(String name) {
    return ENV_STYLE.matcher(name).matches() && name.indexOf('_') >= 0;
  }

  /**
   * Maps the names {@code Config.getPropertyNames()} reports to the keys they stand for.
   *
   * @param reportedNames every name the configuration reports
   * @param keyPatterns the keys the caller knows: literal keys ({@code outbox.node-id}), keys of
   *     every outbox with {@link #NAME} for the outbox name ({@code outbox.<name>.max-attempts}),
   *     and prefixes ending in {@code .*} ({@code outbox.<name>.jms.*}, {@code outbox.health.*})
   *     for every key under them
   * @return the keys and the environment names that stand for none
   */
  public static Resolved resolve(Iterable<String> reportedNames, Collection<String> keyPatterns) {
    List<KeyPattern> patterns = keyPatterns.stream().map(KeyPattern::new).toList();
    List<String> dotted = new ArrayList<>();
    List<String> environment = new ArrayList<>();
    for (String name : reportedNames) {
      if (name.startsWith(PREFIX)) {
        dotted.add(name);
      } else if (isEnvironmentName(name) && name.toUpperCase(Locale.ROOT).startsWith(ENV_PREFIX)) {
        environment.add(name);
      }
    }
    Collections.sort(dotted);
    Collections.sort(environment);

    // Outbox names as spelt in dotted keys, to give an environment name's outbox its spelling.
    Map<String, String> spelt = new HashMap<>();
    for (String name : dotted) {
      int dot = name.indexOf('.', PREFIX.length());
      if (dot > PREFIX.length()) {
        String outbox = name.substring(PREFIX.length(), dot);
        Matcher relay = DOTTED_RELAY_KEY.matcher(name);
        if (relay.matches() || !spelt.containsKey(environmentName(outbox))) {
          spelt.put(environmentName(outbox), outbox);
        }
      }
    }
    // Declared outboxes: outbox.<name>.relay, dotted or as an environment name.
    Set<String> declared = new TreeSet<>();
    for (String name : dotted) {
      Matcher relay = DOTTED_RELAY_KEY.matcher(name);
      if (relay.matches()) {
        declared.add(environmentName(relay.group(1)));
      }
    }
    for (String name : environment) {
      Matcher relay = ENV_RELAY_KEY.matcher(name.toUpperCase(Locale.ROOT));
      if (relay.matches()) {
        declared.add(relay.group(1));
      }
    }

    Map<String, String> written = new TreeMap<>();
    List<String> unmatched = new ArrayList<>();
    // Each environment name's key, by the name upper-cased: null for a name that stands for no key.
    Map<String, Candidate> byEnvironmentName = new HashMap<>();
    Map<String, String> environmentNames = new HashMap<>();
    for (String name : environment) {
      String upper = name.toUpperCase(Locale.ROOT);
      Candidate best = null;
      for (KeyPattern pattern : patterns) {
        Candidate candidate = pattern.matchEnvironment(upper, declared, spelt);
        if (candidate != null && (best == null || candidate.better(best))) {
          best = candidate;
        }
      }
      byEnvironmentName.put(upper, best);
      environmentNames.put(upper, name);
      if (best == null) {
        unmatched.add(name);
      } else {
        written.putIfAbsent(best.key(), name);
      }
    }
    for (String name : dotted) {
      boolean exact = patterns.stream().anyMatch(pattern -> !pattern.prefix && pattern.matchesKey(name));
      String upper = environmentName(name);
      if (exact || !environmentNames.containsKey(upper)) {
        written.put(name, name);
        continue;
      }
      // SmallRye's lower-cased, dotted twin of an environment name. Its key is the environment name's, except under a
      // prefix, where the module that owns the prefix knows the key: there the twin is kept (its value is looked up by
      // its own name, as a key set in a file or a system property with that name would be), written as the variable.
      Candidate candidate = byEnvironmentName.get(upper);
      boolean underPrefix = patterns.stream().anyMatch(pattern -> pattern.prefix && pattern.matchesKey(name));
      if (candidate != null && candidate.underPrefix() && underPrefix) {
        written.put(name, environmentNames.get(upper));
      }
    }
    return new Resolved(Collections.unmodifiableMap(written), List.copyOf(unmatched));
  }

  /**
   * The outcome of {@link #resolve}.
   */
  public static final class Resolved {
    private final Map<String, String> written;
    private final List<String> unmatched;

    Resolved(Map<String, String> written, List<String> unmatched) {
      this.written = written;
      this.unmatched = unmatched;
    }

    /**
     * @return the keys, sorted: each reported dotted key as it is (known or not, for the caller's
     *     misspelling checks), and the key each environment name stands for
     */
    public Set<String> keys() {
      return written.keySet();
    }

    /**
     * @param key one of {@link #keys()}
     * @return the name the user wrote for it, for messages: the environment name if it came from
     *     one, else the key. Under a prefix, SmallRye Config's dotted twin of a variable is kept
     *     beside the variable's own key (both written as the variable): a module reporting unknown
     *     keys reports each written name once
     */
    public String written(String key) {
      return written.getOrDefault(key, key);
    }

    /**
     * @return the environment names that start with {@code OUTBOX_} but stand for no key the
     *     caller knows, as written: misspelt keys, to refuse with {@link #didYouMean}
     */
    public List<String> unmatched() {
      return unmatched;
    }
  }

  /**
   * A relay's (or any module's) own settings, keyed by its own key names: a key spelt in the
   * environment style ({@code CONNECTION_FACTORY}, as {@link #resolve} leaves it under a prefix)
   * is renamed to the known key it stands for ({@code connection-factory}). A key spelt as the
   * module spells it wins over the same key spelt in the environment style: its value was looked
   * up by its own name, with MicroProfile Config's precedence. Unknown keys are kept, once per
   * environment name (the environment spelling preferred), for the module to report.
   *
   * @param properties the settings, as in {@link RelayContext#properties()}
   * @param knownKeys the module's own keys
   * @return the settings by known key, in a new map
   */
  public static Map<String, String> canonicalProperties(Map<String, String> properties, Collection<String> knownKeys) {
    Map<String, String> byEnvironmentName = new HashMap<>();
    for (String known : knownKeys) {
      byEnvironmentName.putIfAbsent(environmentName(known), known);
    }
    Map<String, String> result = new LinkedHashMap<>();
    Map<String, String> unknownByEnvironmentName = new TreeMap<>();
    for (String key : new TreeSet<>(properties.keySet())) {
      if (knownKeys.contains(key)) {
        result.put(key, properties.get(key));
      }
    }
    for (String key : new TreeSet<>(properties.keySet())) {
      if (knownKeys.contains(key)) {
        continue;
      }
      String known = byEnvironmentName.get(environmentName(key));
      if (known != null) {
        result.putIfAbsent(known, properties.get(key));
      } else {
        String previous = unknownByEnvironmentName.get(environmentName(key));
        if (previous == null || isUpperEnvironmentName(key)) {
          unknownByEnvironmentName.put(environmentName(key), key);
        }
      }
    }
    unknownByEnvironmentName.values().forEach(key -> result.put(key, properties.get(key)));
    return result;
  }

  /**
   * @param localKey a key under a prefix, as {@link #canonicalProperties} kept it
   * @return whether it was written as (part of) an environment variable: upper-case letters,
   *     digits and {@code _}
   */
  public static boolean isUpperEnvironmentName(String localKey) {
    return UPPER_ENV_STYLE.matcher(localKey).matches();
  }

  /**
   * A full key as the user wrote it, for messages: its environment name if the key under the
   * prefix is spelt as an environment variable ({@code outbox.o.jms.DESTINATON} was written
   * {@code OUTBOX_O_JMS_DESTINATON}), else the key.
   *
   * @param fullKey the full key, {@code outbox.<name>.<module>.<key>}
   * @param localKey the part after the prefix
   * @return the spelling to show
   */
  public static String written(String fullKey, String localKey) {
    return isUpperEnvironmentName(localKey) ? environmentName(fullKey) : fullKey;
  }

  /**
   * The candidate nearest to a misspelt word, if near enough to be a likely typo: at most a third
   * of the word's length apart (at least 1, at most 3 edits), counting a swap of two neighbouring
   * characters as one edit (Damerau-Levenshtein, optimal string alignment). Case is ignored, and so
   * is the difference between an environment name and the key it stands for when {@code word} is
   * an environment name. Ties go to the alphabetically first candidate.
   *
   * @param word the misspelt word or key, as written
   * @param candidates the known words or keys
   * @return the nearest candidate, as given
   */
  public static Optional<String> nearest(String word, Collection<String> candidates) {
    boolean environment = isEnvironmentName(word) && word.toUpperCase(Locale.ROOT).startsWith(ENV_PREFIX);
    String compared = environment ? word.toUpperCase(Locale.ROOT) : word.toLowerCase(Locale.ROOT);
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String candidate : new TreeSet<>(candidates)) {
      String other = environment ? environmentName(candidate) : candidate.toLowerCase(Locale.ROOT);
      int distance = distance(compared, other);
      if (distance < bestDistance) {
        best = candidate;
        bestDistance = distance;
      }
    }
    int allowed = Math.max(1, Math.min(3, word.length() / 3));
    return best != null && bestDistance <= allowed ? Optional.of(best) : Optional.empty();
  }

  /**
   * The "did you mean" of an error message, in the form the user wrote: {@code " Did you mean
   * outbox.orders.max-attempts?"} for a misspelt key, {@code " Did you mean
   * OUTBOX_ORDERS_MAX_ATTEMPTS?"} for a misspelt environment name; empty if no candidate is near
   * enough (see {@link #nearest}).
   *
   * @param written the misspelt word or key, as written
   * @param candidates the known words or keys
   * @return the sentence, with a leading space, or {@code ""}
   */
  public static String didYouMean(String written, Collection<String> candidates) {
    boolean environment = isEnvironmentName(written) && written.toUpperCase(Locale.ROOT).startsWith(ENV_PREFIX);
    return nearest(written, candidates)
        .map(found -> " Did you mean " + (environment ? environmentName(found) : found) + "?")
        .orElse("");
  }

  /**
   * @param a a word
   * @param b another word
   * @return the Damerau-Levenshtein distance (optimal string alignment) between them: a swap of
   *     two neighbouring characters counts once
   */
  public static int distance(String a, String b) {
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

  /** A key that an environment name fits, ranked. */
  private record Candidate(String key, int rank, int nameLength) {
    boolean underPrefix() {
      return rank == 2 || rank == 3 || rank == 5;
    }

    boolean better(Candidate other) {
      return rank != other.rank ? rank < other.rank : nameLength < other.nameLength;
    }
  }

  /** One key pattern: how it matches a dotted key and an (upper-cased) environment name. */
  private static final class KeyPattern {
    private final String pattern;
    private final boolean prefix;
    private final boolean named;
    private final Pattern dotted;
    private final Pattern environment;

    KeyPattern(String pattern) {
      this.pattern = pattern;
      this.prefix = pattern.endsWith("." + ANY);
      String body = prefix ? pattern.substring(0, pattern.length() - ANY.length()) : pattern;
      this.named = body.contains(NAME);
      StringBuilder dottedRegex = new StringBuilder();
      StringBuilder environmentRegex = new StringBuilder();
      String[] parts = body.split(Pattern.quote(NAME), -1);
      for (int i = 0; i < parts.length; i++) {
        if (i > 0) {
          dottedRegex.append("([^.]+)");
          environmentRegex.append("(.+)");
        }
        dottedRegex.append(Pattern.quote(parts[i]));
        if (!parts[i].isEmpty()) {
          environmentRegex.append(Pattern.quote(environmentName(parts[i])));
        }
      }
      if (prefix) {
        dottedRegex.append(".+");
        environmentRegex.append("(.+)");
      }
      this.dotted = Pattern.compile(dottedRegex.toString());
      this.environment = Pattern.compile(environmentRegex.toString());
    }

    boolean matchesKey(String key) {
      return dotted.matcher(key).matches();
    }

    /**
     * Ranks, best first: a literal key 0; a key of a declared outbox 1; under a prefix of a declared
     * outbox 2; under a literal prefix 3; a key of an undeclared outbox 4; under its prefix 5.
     */
    Candidate matchEnvironment(String upper, Set<String> declared, Map<String, String> spelt) {
      Matcher matcher = environment.matcher(upper);
      if (!matcher.matches()) {
        return null;
      }
      String key = pattern;
      int rank = prefix ? 3 : 0;
      int nameLength = 0;
      if (named) {
        String outbox = matcher.group(1);
        if (outbox.startsWith("_") || outbox.endsWith("_")) {
          return null;
        }
        boolean known = declared.contains(outbox);
        rank = prefix ? (known ? 2 : 5) : (known ? 1 : 4);
        nameLength = outbox.length();
        key = key.replace(NAME, spelt.getOrDefault(outbox, outbox.toLowerCase(Locale.ROOT)));
      }
      if (prefix) {
        String rest = matcher.group(matcher.groupCount());
        if (rest.startsWith("_")) {
          return null;
        }
        key = key.substring(0, key.length() - ANY.length()) + rest;
      }
      return new Candidate(key, rank, nameLength);
    }
  }
}
