package dev.outboxer.spi;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One configuration key, declared once: its name under its {@linkplain SettingsDeclaration
 * declaration's} prefix, its type, its range, its default and what it means. A module reads the
 * key's value through a {@link SettingsReader}, which parses and checks it with the rules declared
 * here; the configuration reference in the manual is generated from the same declarations.
 *
 * <p>What it guarantees: every module parses a type the same way (durations with {@link
 * ConfigDurations}, whole numbers, sizes, booleans, choices, names), refuses a blank value, and
 * says why a value is refused in the same words ("is out of range: use a number from 0 to 9"). What
 * it does not: rules between keys (a relay timeout inside the transaction timeout); the module
 * checks those after reading and reports them with {@link SettingsReader#problem}.
 *
 * <p>Instances are immutable; the {@code with...} methods return a copy.
 *
 * @param <T> the type of the parsed value
 */
public final class Setting<T> {

  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(b|kb|kib|mb|mib|gb|gib)?");
  private static final Pattern WHOLE_NUMBER = Pattern.compile("[-+]?\\d+");

  private final String key;
  private final String type;
  private final String range;
  private final Function<String, T> parser;
  private final Function<T, String> formatter;
  private final T defaultValue;
  private final String defaultText;
  private final String meaning;
  private final boolean required;
  private final boolean secret;

  private Setting(String key, String type, String range, Function<String, T> parser, Function<T, String> formatter,
      T defaultValue, String defaultText, String meaning, boolean required, boolean secret) {
    this.key = Objects.requireNonNull(key, "key");
    this.type = type;
    this.range = range;
    this.parser = parser;
    this.formatter = formatter;
    this.defaultValue = defaultValue;
    this.defaultText = defaultText;
    this.meaning = meaning;
    this.required = required;
    this.secret = secret;
  }

  private static <T> Setting<T> of(String key, String type, String range, Function<String, T> parser,
      Function<T, String> formatter) {
    return new Setting<>(key, type, range, parser, formatter, null, null, "", false, false);
  }

  /**
   * @param key the key under the declaration's prefix, for example {@code priority}
   * @param min the least value accepted
   * @param max the greatest value accepted
   * @return a whole number from {@code min} to {@code max}
   */
  public static Setting<Integer> integer(String key, int min, int max) {
    return of(key, "whole number", min + " to " + max, text -> Math.toIntExact(parseWhole(text, min, max)),
        String::valueOf);
  }

  /**
   * @param key the key under the declaration's prefix
   * @param min the least value accepted
   * @param max the greatest value accepted
   * @return a whole number from {@code min} to {@code max}, as a {@code long}
   */
  public static Setting<Long> longInteger(String key, long min, long max) {
    return of(key, "whole number", min + " to " + (max == Long.MAX_VALUE ? "2^63-1" : max),
        text -> parseWhole(text, min, max), String::valueOf);
  }

  /**
   * A duration as {@link ConfigDurations} spells it, in whole milliseconds, longer than zero and at
   * most {@code max}.
   *
   * @param key the key under the declaration's prefix
   * @param max the longest duration accepted
   * @return the setting
   */
  public static Setting<Duration> duration(String key, Duration max) {
    return duration(key, Duration.ofMillis(1), max);
  }

  /**
   * A duration as {@link ConfigDurations} spells it, in whole milliseconds, from {@code min} to
   * {@code max}. With {@code min} zero, {@code 0} (without a unit) is accepted as zero.
   *
   * @param key the key under the declaration's prefix
   * @param min the shortest duration accepted, zero or more
   * @param max the longest duration accepted
   * @return the setting
   */
  public static Setting<Duration> duration(String key, Duration min, Duration max) {
    return of(key, "duration", formatDuration(min) + " to " + formatDuration(max),
        text -> parseDuration(text, min, max), Setting::formatDuration);
  }

  /**
   * A size in bytes: {@code 1048576}, {@code 512KB}, {@code 16MB}, {@code 1GB} (KB, KiB = 1024 bytes).
   *
   * @param key the key under the declaration's prefix
   * @param min the least number of bytes
   * @param max the greatest number of bytes
   * @return the setting
   */
  public static Setting<Long> size(String key, long min, long max) {
    return of(key, "size", formatSize(min) + " to " + formatSize(max), text -> parseSize(text, min, max),
        Setting::formatSize);
  }

  /**
   * @param key the key under the declaration's prefix
   * @return {@code true} or {@code false}, in any case
   */
  public static Setting<Boolean> bool(String key) {
    return of(key, "boolean", "true, false", text -> switch (text.toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default -> throw new IllegalArgumentException("is not a boolean: use true or false");
    }, String::valueOf);
  }

  /**
   * One of the given words, in any case.
   *
   * @param key the key under the declaration's prefix
   * @param choices each word (as written in the configuration, lower case) and what it stands for, in the order the
   *     reference lists them
   * @param <E> what the words stand for
   * @return the setting
   */
  public static <E> Setting<E> oneOf(String key, Map<String, E> choices) {
    return oneOf(key, "valid", choices);
  }

  /**
   * One of the given words, in any case, refused as "is not a {@code noun}" ("an" before a vowel).
   *
   * @param key the key under the declaration's prefix
   * @param noun what the words are, for messages: {@code worker mode} gives "is not a worker mode: use ...",
   *     {@code ordering mode} "is not an ordering mode: use ..."
   * @param choices each word (lower case) and what it stands for, in the order the reference lists them
   * @param <E> what the words stand for
   * @return the setting
   */
  public static <E> Setting<E> oneOf(String key, String noun, Map<String, E> choices) {
    Map<String, E> copy = new LinkedHashMap<>(choices);
    List<String> words = new ArrayList<>(copy.keySet());
    String listed = words.size() <= 1 ? String.join("", words)
        : String.join(", ", words.subList(0, words.size() - 1)) + " or " + words.get(words.size() - 1);
    return of(key, "one of", String.join(", ", words), text -> {
      E found = copy.get(text.toLowerCase(Locale.ROOT));
      if (found == null) {
        throw new IllegalArgumentException((noun.equals("valid") ? "is not valid" : "is not " + article(noun) + noun)
            + ": use " + listed);
      }
      return found;
    }, value -> copy.entrySet().stream().filter(e -> e.getValue().equals(value)).map(Map.Entry::getKey)
        .findFirst().orElse(String.valueOf(value)));
  }

  /**
   * One of the given words, in any case, as the word in lower case.
   *
   * @param key the key under the declaration's prefix
   * @param words the words accepted, lower case
   * @return the setting
   */
  public static Setting<String> oneOf(String key, String... words) {
    Map<String, String> choices = new LinkedHashMap<>();
    for (String word : words) {
      choices.put(word, word);
    }
    return oneOf(key, choices);
  }

  /**
   * @param key the key under the declaration's prefix
   * @return any text that is not blank, without surrounding spaces
   */
  public static Setting<String> text(String key) {
    return of(key, "text", "", text -> text, value -> value);
  }

  /**
   * @param key the key under the declaration's prefix
   * @return a JNDI name (not blank, without surrounding spaces)
   */
  public static Setting<String> jndiName(String key) {
    return of(key, "JNDI name", "", text -> text, value -> value);
  }

  /**
   * A list separated by commas; each element is stripped, and an empty element is refused.
   *
   * @param key the key under the declaration's prefix
   * @return the setting
   */
  public static Setting<List<String>> list(String key) {
    return of(key, "list", "comma-separated", text -> {
      List<String> elements = new ArrayList<>();
      for (String element : text.split(",", -1)) {
        if (element.isBlank()) {
          throw new IllegalArgumentException("has an empty element: separate the elements by single commas");
        }
        elements.add(element.strip());
      }
      return List.copyOf(elements);
    }, value -> String.join(",", value));
  }

  /**
   * @param value the value used when the key is not set
   * @return a copy with that default, documented in the key's own spelling
   */
  public Setting<T> withDefault(T value) {
    return new Setting<>(key, type, range, parser, formatter, value, formatter.apply(value), meaning, required, secret);
  }

  /**
   * @param value the value used when the key is not set, or {@code null} if the default depends on other keys
   * @param text the default as the reference and the messages describe it ({@code "3/4 of relay-timeout"})
   * @return a copy with that default
   */
  public Setting<T> withDefault(T value, String text) {
    return new Setting<>(key, type, range, parser, formatter, value, text, meaning, required, secret);
  }

  /**
   * @param text what the key means, one or two sentences for the reference
   * @return a copy with that meaning
   */
  public Setting<T> meaning(String text) {
    return new Setting<>(key, type, range, parser, formatter, defaultValue, defaultText, text, required, secret);
  }

  /** @return a copy that must be set: a {@link SettingsReader} reports it when it is not */
  public Setting<T> required() {
    return new Setting<>(key, type, range, parser, formatter, defaultValue, defaultText, meaning, true, secret);
  }

  /** @return a copy whose value is never shown in a message (a password, a token) */
  public Setting<T> secret() {
    return new Setting<>(key, type, range, parser, formatter, defaultValue, defaultText, meaning, required, true);
  }

  /**
   * @param text the range as the reference shows it, where the type's own is not what the module accepts
   * @return a copy with that range
   */
  public Setting<T> range(String text) {
    return new Setting<>(key, type, text, parser, formatter, defaultValue, defaultText, meaning, required, secret);
  }

  /**
   * A copy that accepts only what {@code check} accepts, after this setting's own parsing.
   *
   * @param check returns the reason a parsed value is refused ({@code "is not a URL: ..."}), empty to accept it
   * @return the copy
   */
  public Setting<T> checkedBy(Function<T, Optional<String>> check) {
    Function<String, T> parse = parser;
    return new Setting<>(key, type, range, text -> {
      T value = parse.apply(text);
      check.apply(value).ifPresent(reason -> {
        throw new IllegalArgumentException(reason);
      });
      return value;
    }, formatter, defaultValue, defaultText, meaning, required, secret);
  }

  /**
   * Parses a configured value.
   *
   * @param text the value as configured; surrounding spaces are ignored
   * @return the value
   * @throws IllegalArgumentException why the value is refused, phrased to follow {@code key=value}: {@code "is out of
   *     range: use a number from 0 to 9"}
   */
  public T parse(String text) {
    String stripped = text.strip();
    if (stripped.isEmpty()) {
      throw new IllegalArgumentException("is blank: remove the key" + (defaultText == null ? "" : " for the default ("
          + defaultText + ")") + " or give it a value");
    }
    return parser.apply(stripped);
  }

  /** @return the key under its declaration's prefix */
  public String key() {
    return key;
  }

  /** @return the type, for the reference: {@code duration}, {@code whole number}, {@code size}, {@code one of}... */
  public String type() {
    return type;
  }

  /** @return the values accepted, for the reference: {@code 1 to 1024}, {@code group, total, none}; may be empty */
  public String range() {
    return range;
  }

  /** @return the default, if the key has one that does not depend on other keys */
  public Optional<T> defaultValue() {
    return Optional.ofNullable(defaultValue);
  }

  /** @return the default as documented, if any: {@code 30s}, {@code 3/4 of relay-timeout} */
  public Optional<String> defaultText() {
    return Optional.ofNullable(defaultText);
  }

  /** @return what the key means */
  public String meaning() {
    return meaning;
  }

  /** @return whether the key must be set */
  public boolean isRequired() {
    return required;
  }

  /** @return whether the value must never be shown */
  public boolean isSecret() {
    return secret;
  }

  /**
   * @param value a value of this setting
   * @return it in the key's own spelling ({@code 30s}, {@code 1MB}, {@code persistent})
   */
  public String format(T value) {
    return formatter.apply(value);
  }

  @Override
  public String toString() {
    return key;
  }

  private static String article(String noun) {
    return noun.isEmpty() || "aeiou".indexOf(Character.toLowerCase(noun.charAt(0))) < 0 ? "a " : "an ";
  }

  private static long parseWhole(String text, long min, long max) {
    long parsed;
    try {
      parsed = Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException((WHOLE_NUMBER.matcher(text).matches() ? "is out of range: use a number from "
          : "is not a number: use a whole number from ") + min + " to " + max);
    }
    if (parsed < min || parsed > max) {
      throw new IllegalArgumentException("is out of range: use a number from " + min + " to " + max);
    }
    return parsed;
  }

  private static Duration parseDuration(String text, Duration min, Duration max) {
    Duration parsed;
    if (min.isZero() && text.equals("0")) {
      parsed = Duration.ZERO;
    } else {
      try {
        parsed = ConfigDurations.parse(text);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("is not a duration: " + e.getMessage());
      }
    }
    if (parsed.isNegative() || parsed.isZero() && !min.isZero()) {
      throw new IllegalArgumentException(min.isZero() ? "is negative: use 0 or a positive duration"
          : "must be longer than zero");
    }
    if (parsed.getNano() % 1_000_000 != 0) {
      // Every delay is used in whole milliseconds: the rest would be cut off silently (a backoff of PT0.0005S became
      // 0 ms, doubling from 0 into immediate retries).
      throw new IllegalArgumentException("is not a whole number of milliseconds: durations are counted in"
          + " milliseconds, the shortest is 1ms");
    }
    if (parsed.compareTo(min) < 0) {
      throw new IllegalArgumentException("is too short: the least is " + formatDuration(min));
    }
    if (parsed.compareTo(max) > 0) {
      throw new IllegalArgumentException("is too long: the limit is " + formatDuration(max));
    }
    return parsed;
  }

  private static long parseSize(String text, long min, long max) {
    Matcher matcher = SIZE.matcher(text.toLowerCase(Locale.ROOT));
    if (!matcher.matches()) {
      throw new IllegalArgumentException("is not a size: use a number of bytes, optionally with KB, MB or GB"
          + " (powers of 1024), for example 1MB");
    }
    String outOfRange = "is out of range: use " + formatSize(min) + " to " + formatSize(max);
    try {
      long amount = Long.parseLong(matcher.group(1));
      String unit = matcher.group(2) == null ? "b" : matcher.group(2);
      long factor = switch (unit.charAt(0)) {
        case 'k' -> 1024L;
        case 'm' -> 1024L * 1024;
        case 'g' -> 1024L * 1024 * 1024;
        default -> 1L;
      };
      long bytes = Math.multiplyExact(amount, factor);
      if (bytes < min || bytes > max) {
        throw new IllegalArgumentException(outOfRange);
      }
      return bytes;
    } catch (ArithmeticException | NumberFormatException tooLarge) {
      throw new IllegalArgumentException(outOfRange);
    }
  }

  /**
   * @param duration a duration
   * @return it in the shortest of the spellings {@link ConfigDurations} accepts: {@code 500ms}, {@code 30s},
   *     {@code 5m}, {@code 2h}, {@code 365d}
   */
  public static String formatDuration(Duration duration) {
    long millis = duration.toMillis();
    if (millis == 0) {
      return "0";
    }
    if (millis % 86_400_000 == 0) {
      return millis / 86_400_000 + "d";
    }
    if (millis % 3_600_000 == 0) {
      return millis / 3_600_000 + "h";
    }
    if (millis % 60_000 == 0) {
      return millis / 60_000 + "m";
    }
    if (millis % 1000 == 0) {
      return millis / 1000 + "s";
    }
    return millis + "ms";
  }

  /**
   * @param bytes a number of bytes
   * @return it in the shortest exact spelling: {@code 1MB}, {@code 512KB}, {@code 1000}
   */
  public static String formatSize(long bytes) {
    if (bytes >= 1L << 30 && bytes % (1L << 30) == 0) {
      return (bytes >> 30) + "GB";
    }
    if (bytes >= 1L << 20 && bytes % (1L << 20) == 0) {
      return (bytes >> 20) + "MB";
    }
    if (bytes >= 1L << 10 && bytes % (1L << 10) == 0) {
      return (bytes >> 10) + "KB";
    }
    return String.valueOf(bytes);
  }
}
