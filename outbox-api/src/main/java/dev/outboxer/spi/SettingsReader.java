package dev.outboxer.spi;

import dev.outboxer.OutboxConfigurationException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Reads the keys of one {@link SettingsDeclaration}, typed, and collects every problem, so that one
 * failed deployment shows them all: unknown keys (named as the user wrote them, an environment
 * variable by its name, with the nearest known key, declared or {@linkplain
 * SettingsDeclaration#passingThrough passed through}), values a {@link Setting} refuses, required
 * keys not set, and the module's own rules between keys ({@link #problem}). {@link #throwIfAny()}
 * throws the first problem with the others suppressed.
 *
 * <p>Every problem is an {@link OutboxConfigurationException} naming the key, reading {@code
 * <key>=<value> <reason> (<title> of outbox '<name>')}; a {@linkplain Setting#secret() secret}
 * value is shown as {@code (hidden)}.
 *
 * <p>A relay gets its reader from {@link RelayContext#settings}; an add-on reading MicroProfile
 * Config itself from {@link #fromConfig}. Not thread-safe: one reader reads once.
 */
public final class SettingsReader {

  private final SettingsDeclaration declaration;
  private final String outbox;
  private final Map<String, String> values;
  private final Map<String, String> writtenKeys;
  private final Map<String, String> passedThrough;
  private final String where;
  private final List<OutboxConfigurationException> problems = new ArrayList<>();

  private SettingsReader(SettingsDeclaration declaration, String outbox, Map<String, String> values,
      Map<String, String> writtenKeys, Map<String, String> unknown, String where) {
    this.declaration = declaration;
    this.outbox = outbox;
    this.passedThrough = new TreeMap<>();
    values.forEach((key, value) -> {
      if (!declaration.keys().contains(key)) {
        passedThrough.put(key, value);
      }
    });
    values.keySet().removeAll(passedThrough.keySet());
    this.values = values;
    this.writtenKeys = writtenKeys;
    this.where = where;
    // The nearest key may be one passed through (bootstrap.server: bootstrap.servers); the list shows the declared keys
    // and says what else is accepted.
    List<String> known = new ArrayList<>();
    declaration.keys().forEach(key -> known.add(fullKey(key)));
    declaration.passThroughKeys().forEach(key -> known.add(fullKey(key)));
    String prefix = declaration.fullKey(outbox, "");
    String more = declaration.passThroughMeaning().map(meaning -> " and " + meaning).orElse("");
    unknown.forEach((key, written) -> problems.add(new OutboxConfigurationException(fullKey(key), written
        + " is not a setting of the " + where + "." + ConfigKeyNames.didYouMean(written, known)
        + " Known keys under " + prefix + ": " + new TreeSet<>(declaration.keys()) + more)));
  }

  /**
   * A relay's settings: {@link RelayContext#properties()}, environment spellings renamed to the
   * declared keys ({@link ConfigKeyNames#canonicalProperties}).
   *
   * @param context the relay's context
   * @param declaration the relay's keys, with the prefix {@code outbox.<name>.<relay>.}
   * @return the reader, with every unknown key already recorded as a problem
   */
  public static SettingsReader forRelay(RelayContext context, SettingsDeclaration declaration) {
    Set<String> known = new TreeSet<>(declaration.keys());
    known.addAll(declaration.passThroughKeys());
    Map<String, String> canonical = ConfigKeyNames.canonicalProperties(context.properties(), known);
    Map<String, String> values = new LinkedHashMap<>();
    Map<String, String> written = new LinkedHashMap<>();
    Map<String, String> unknown = new TreeMap<>();
    canonical.forEach((key, value) -> {
      String fullKey = declaration.fullKey(context.outbox(), key);
      if (known.contains(key)) {
        values.put(key, value);
        written.put(key, writtenAs(context.properties(), key, fullKey));
      } else {
        unknown.put(key, ConfigKeyNames.written(fullKey, key));
      }
    });
    return new SettingsReader(declaration, context.outbox(), values, written, unknown,
        declaration.title() + " of outbox '" + context.outbox() + "'");
  }

  /**
   * How the user wrote a relay key, for messages about its value: as the environment variable
   * ({@code OUTBOX_ORDERS_JMS_PRIORITY}) when only the variable's spelling is among the properties,
   * else the full key.
   */
  private static String writtenAs(Map<String, String> properties, String key, String fullKey) {
    if (properties.containsKey(key)) {
      return fullKey;
    }
    String environmentName = ConfigKeyNames.environmentName(key);
    for (String property : properties.keySet()) {
      if (ConfigKeyNames.isUpperEnvironmentName(property)
          && ConfigKeyNames.environmentName(property).equals(environmentName)) {
        return ConfigKeyNames.written(fullKey, property);
      }
    }
    return fullKey;
  }

  /**
   * Settings read from MicroProfile Config by an add-on: every declared key looked up by its full
   * key (so MicroProfile Config's precedence holds and environment variables are found), and every
   * reported name under the prefix that stands for no declared key recorded as unknown.
   *
   * @param declaration the keys
   * @param outbox the outbox name when the prefix holds one ({@code outbox.<name>.health.}), else {@code null}
   * @param lookup a key's value, empty when not set
   * @param propertyNames every name the configuration reports ({@code Config.getPropertyNames()})
   * @return the reader, with every unknown key already recorded as a problem
   */
  public static SettingsReader fromConfig(SettingsDeclaration declaration, String outbox,
      Function<String, Optional<String>> lookup, Iterable<String> propertyNames) {
    String prefix = declaration.fullKey(outbox, "");
    List<String> patterns = new ArrayList<>();
    declaration.keys().forEach(key -> patterns.add(prefix + key));
    patterns.add(prefix + ConfigKeyNames.ANY);
    ConfigKeyNames.Resolved names = ConfigKeyNames.resolve(propertyNames, patterns);
    Map<String, String> values = new LinkedHashMap<>();
    Map<String, String> written = new LinkedHashMap<>();
    Map<String, String> unknown = new TreeMap<>();
    for (String key : declaration.keys()) {
      String fullKey = prefix + key;
      lookup.apply(fullKey).ifPresent(value -> {
        values.put(key, value);
        written.put(key, names.keys().contains(fullKey) ? names.written(fullKey) : fullKey);
      });
    }
    for (String key : declaration.passThroughKeys()) {
      lookup.apply(prefix + key).ifPresent(value -> values.put(key, value));
    }
    Set<String> seen = new TreeSet<>();
    for (String fullKey : names.keys()) {
      if (!fullKey.startsWith(prefix) || fullKey.length() == prefix.length()) {
        continue;
      }
      String local = fullKey.substring(prefix.length());
      boolean declared = declaration.passThroughKeys().stream().anyMatch(local::equals)
          || declaration.keys().stream().anyMatch(key -> ConfigKeyNames.environmentName(key).equals(ConfigKeyNames.environmentName(local)));
      String shown = names.written(fullKey);
      if (!declared && lookup.apply(fullKey).or(() -> lookup.apply(shown)).isPresent() && seen.add(shown)) {
        unknown.put(local, shown);
      }
    }
    String where = outbox == null ? declaration.title() : declaration.title() + " of outbox '" + outbox + "'";
    return new SettingsReader(declaration, outbox, values, written, unknown, where);
  }

  /**
   * Settings whose values the caller looked up itself, for a module that checks unknown keys its
   * own way (the core, whose prefix {@code outbox.<name>.} holds other modules' keys).
   *
   * @param declaration the keys
   * @param outbox the outbox name, or {@code null}
   * @param lookup a full key's value, empty when not set
   * @param where what the keys configure, for messages, or empty for none
   * @return the reader
   */
  public static SettingsReader lookingUp(SettingsDeclaration declaration, String outbox,
      Function<String, Optional<String>> lookup, String where) {
    Map<String, String> values = new LinkedHashMap<>();
    Map<String, String> written = new LinkedHashMap<>();
    for (String key : declaration.keys()) {
      String fullKey = declaration.fullKey(outbox, key);
      lookup.apply(fullKey).ifPresent(value -> {
        values.put(key, value);
        written.put(key, fullKey);
      });
    }
    return new SettingsReader(declaration, outbox, values, written, Map.of(), where);
  }

  /**
   * @param setting a declared setting
   * @param <T> its type
   * @return its value; its default when not set; {@code null} when not set and without a default (a required key is
   *     then reported), or when the value is refused (reported, and the default returned if there is one)
   */
  public <T> T get(Setting<T> setting) {
    return read(setting).orElseGet(() -> setting.defaultValue().orElse(null));
  }

  /**
   * @param setting a declared setting
   * @param <T> its type
   * @return its value if set and accepted; empty when not set (a required key is then reported) or refused (reported)
   */
  public <T> Optional<T> optional(Setting<T> setting) {
    return read(setting);
  }

  private <T> Optional<T> read(Setting<T> setting) {
    Setting<?> declared = declaration.setting(setting.key()).orElseThrow(() -> new IllegalArgumentException(
        setting.key() + " is not declared under " + declaration.prefix()));
    if (declared != setting) {
      throw new IllegalArgumentException(setting.key() + " is declared under " + declaration.prefix()
          + " as another setting");
    }
    String value = values.get(setting.key());
    if (value == null) {
      if (setting.isRequired()) {
        problems.add(new OutboxConfigurationException(fullKey(setting.key()), fullKey(setting.key())
            + " is not set: the " + where + " needs it" + (setting.meaning().isEmpty() ? "" : " (" + setting.meaning()
            + ")")));
      }
      return Optional.empty();
    }
    try {
      return Optional.of(setting.parse(value));
    } catch (IllegalArgumentException refused) {
      problem(setting, refused.getMessage());
      return Optional.empty();
    }
  }

  /**
   * @param setting a declared setting
   * @return its value as configured, stripped, if set
   */
  public Optional<String> raw(Setting<?> setting) {
    return Optional.ofNullable(values.get(setting.key())).map(String::strip);
  }

  /**
   * @param setting a declared setting
   * @return whether it is set
   */
  public boolean isSet(Setting<?> setting) {
    return values.containsKey(setting.key());
  }

  /**
   * Records a problem with a setting's value: {@code <key>=<value> <reason> (<where>)}.
   *
   * @param setting the setting
   * @param reason why its value is refused, phrased to follow {@code key=value}, with the fix
   */
  public void problem(Setting<?> setting, String reason) {
    problem(setting, setting.isSecret() ? "(hidden)" : values.getOrDefault(setting.key(), ""), reason);
  }

  /**
   * Records a problem with a setting, showing {@code shown} in place of its value: {@code
   * <key>=<shown> <reason> (<where>)}. For a rule about a key that is not set ({@code (not set)}),
   * or a value of which a part must not be shown (a URL's {@code user:password@}). A {@linkplain
   * Setting#secret() secret} setting that is set is still shown as {@code (hidden)}, whatever is
   * passed.
   *
   * @param setting the setting
   * @param shown what to show as its value
   * @param reason why it is refused, phrased to follow {@code key=value}, with the fix
   */
  public void problem(Setting<?> setting, String shown, String reason) {
    if (setting.isSecret() && values.containsKey(setting.key())) {
      shown = "(hidden)";
    }
    String written = writtenKeys.getOrDefault(setting.key(), fullKey(setting.key()));
    problems.add(new OutboxConfigurationException(fullKey(setting.key()), written + "=" + shown + " " + reason
        + (where.isEmpty() ? "" : " (" + where + ")")));
  }

  /**
   * Records a problem with the value of a key the declaration {@linkplain SettingsDeclaration#passingThrough passes
   * through} (a Kafka producer property the module refuses): {@code <key>=<value> <reason> (<where>)}, like {@link
   * #problem(Setting, String)} for a declared key.
   *
   * @param key the key without the prefix, as in {@link #passedThrough()}
   * @param secret whether the value must not be shown (a password): it is then shown as {@code (hidden)}
   * @param reason why its value is refused, phrased to follow {@code key=value}, with the fix
   * @throws IllegalArgumentException if the declaration does not pass the key through
   */
  public void passedThroughProblem(String key, boolean secret, String reason) {
    if (!declaration.passThroughKeys().contains(key)) {
      throw new IllegalArgumentException(key + " is not passed through under " + declaration.prefix());
    }
    String shown = secret ? "(hidden)" : passedThrough.getOrDefault(key, "");
    problems.add(new OutboxConfigurationException(fullKey(key), fullKey(key) + "=" + shown + " " + reason
        + (where.isEmpty() ? "" : " (" + where + ")")));
  }

  /** @param problem a problem not about one key's value, recorded as it is */
  public void problem(OutboxConfigurationException problem) {
    problems.add(problem);
  }

  /**
   * @return the keys set that the declaration {@linkplain SettingsDeclaration#passingThrough passes through}, with their
   *     values as configured, sorted by key
   */
  public Map<String, String> passedThrough() {
    return java.util.Collections.unmodifiableMap(passedThrough);
  }

  /**
   * @param key a key without the prefix
   * @return the full key: {@code outbox.orders.jms.destination}
   */
  public String fullKey(String key) {
    return declaration.fullKey(outbox, key);
  }

  /** @return what the keys configure, for messages: {@code jms relay of outbox 'orders'} */
  public String where() {
    return where;
  }

  /** @return every problem so far, in the order found */
  public List<OutboxConfigurationException> problems() {
    return List.copyOf(problems);
  }

  /** @throws OutboxConfigurationException the first problem, with every other one suppressed; nothing if none */
  public void throwIfAny() {
    throwFirst(problems);
  }

  /**
   * @param problems problems found, in order
   * @throws OutboxConfigurationException the first, with every other one suppressed; nothing if none
   */
  public static void throwFirst(Collection<? extends OutboxConfigurationException> problems) {
    if (!problems.isEmpty()) {
      List<OutboxConfigurationException> all = List.copyOf(problems);
      OutboxConfigurationException first = all.get(0);
      all.subList(1, all.size()).forEach(first::addSuppressed);
      throw first;
    }
  }
}
