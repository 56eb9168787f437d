package dev.outboxer.spi;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The keys of one module under one prefix, declared once: {@code outbox.<name>.jms.*} of the JMS
 * relay, {@code outbox.health.*} of outbox-health. A module reads them with a {@link SettingsReader}
 * and lists the declaration in its {@link SettingsCatalog}, from which the manual's configuration
 * reference is generated and checked.
 *
 * <p>What it guarantees: every key under the prefix that is not declared here is reported as
 * unknown by a {@link SettingsReader} (with the one suggestion rule of {@link ConfigKeyNames}), and
 * every declared key appears in the reference with its type, range, default and meaning. What it
 * does not: keys another module owns under a longer prefix (the core's {@code outbox.<name>.*}
 * leaves {@code outbox.<name>.jms.*} to the JMS relay); each module checks its own.
 */
public final class SettingsDeclaration {

  private final String title;
  private final String module;
  private final String prefix;
  private final String appliesWhen;
  private final Map<String, Setting<?>> settings;
  private final Set<String> passThrough;
  private final String passThroughMeaning;

  private SettingsDeclaration(String title, String module, String prefix, String appliesWhen,
      Map<String, Setting<?>> settings, Set<String> passThrough, String passThroughMeaning) {
    this.title = Objects.requireNonNull(title, "title");
    this.module = Objects.requireNonNull(module, "module");
    this.prefix = Objects.requireNonNull(prefix, "prefix");
    this.appliesWhen = appliesWhen;
    this.settings = settings;
    this.passThrough = passThrough;
    this.passThroughMeaning = passThroughMeaning;
  }

  /**
   * @param title what the keys configure, for messages and the reference: {@code jms relay}, {@code outbox-health}
   * @param module the Maven artifact that reads them: {@code outbox-jms-relay}
   * @param prefix the prefix of every key, ending with a dot; {@link ConfigKeyNames#NAME} stands for the outbox
   *     name: {@code outbox.<name>.jms.}
   * @param settings the keys, in the order the reference lists them
   * @return the declaration
   * @throws IllegalArgumentException if two settings have the same key or the prefix does not end with a dot
   */
  public static SettingsDeclaration of(String title, String module, String prefix, Setting<?>... settings) {
    if (!prefix.endsWith(".")) {
      throw new IllegalArgumentException("prefix " + prefix + " must end with a dot");
    }
    Map<String, Setting<?>> byKey = new LinkedHashMap<>();
    for (Setting<?> setting : settings) {
      if (byKey.put(setting.key(), setting) != null) {
        throw new IllegalArgumentException(prefix + setting.key() + " is declared twice");
      }
    }
    return new SettingsDeclaration(title, module, prefix, null, byKey, Set.of(), null);
  }

  /**
   * @param condition when the keys are read, for the reference: {@code outbox.<name>.relay=jms}
   * @return a copy with that condition
   */
  public SettingsDeclaration appliesWhen(String condition) {
    return new SettingsDeclaration(title, module, prefix, condition, settings, passThrough, passThroughMeaning);
  }

  /**
   * A copy that also accepts the given keys under the prefix without declaring them one by one: a
   * client library's own properties that the module hands on (Kafka's producer properties). A
   * {@link SettingsReader} does not report them as unknown and gives them by {@link
   * SettingsReader#passedThrough()}; the module checks their values itself.
   *
   * @param meaning what they are, for the reference: {@code any Kafka producer property}
   * @param keys the keys accepted, without the prefix
   * @return the copy
   */
  public SettingsDeclaration passingThrough(String meaning, Collection<String> keys) {
    return new SettingsDeclaration(title, module, prefix, appliesWhen, settings, Set.copyOf(keys), meaning);
  }

  /** @return the keys handed on undeclared (see {@link #passingThrough}); empty for most modules */
  public Set<String> passThroughKeys() {
    return passThrough;
  }

  /** @return what the keys handed on are, for the reference, if the declaration has any */
  public Optional<String> passThroughMeaning() {
    return Optional.ofNullable(passThroughMeaning);
  }

  /** @return what the keys configure: {@code jms relay} */
  public String title() {
    return title;
  }

  /** @return the Maven artifact that reads the keys */
  public String module() {
    return module;
  }

  /** @return the prefix, ending with a dot, {@link ConfigKeyNames#NAME} standing for the outbox name */
  public String prefix() {
    return prefix;
  }

  /** @return whether the prefix holds an outbox name */
  public boolean perOutbox() {
    return prefix.contains(ConfigKeyNames.NAME);
  }

  /** @return when the keys are read, if only in some configurations */
  public Optional<String> appliesWhen() {
    return Optional.ofNullable(appliesWhen);
  }

  /** @return the declared settings, in order */
  public List<Setting<?>> settings() {
    return List.copyOf(settings.values());
  }

  /** @return the declared keys, without the prefix */
  public Set<String> keys() {
    return settings.keySet();
  }

  /**
   * @param key a key without the prefix
   * @return its declaration, if declared
   */
  public Optional<Setting<?>> setting(String key) {
    return Optional.ofNullable(settings.get(key));
  }

  /**
   * @param outbox the outbox name, ignored when the prefix holds none
   * @param key a key without the prefix
   * @return the full key: {@code outbox.orders.jms.destination}
   */
  public String fullKey(String outbox, String key) {
    return prefix.replace(ConfigKeyNames.NAME, outbox == null ? ConfigKeyNames.NAME : outbox) + key;
  }

  /** @return every declared key as a {@link ConfigKeyNames} pattern: {@code outbox.<name>.jms.destination} */
  public List<String> keyPatterns() {
    List<String> patterns = new ArrayList<>();
    settings.keySet().forEach(key -> patterns.add(prefix + key));
    return patterns;
  }
}
