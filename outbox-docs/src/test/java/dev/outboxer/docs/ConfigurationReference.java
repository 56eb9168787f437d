package dev.outboxer.docs;

import dev.outboxer.spi.ConfigKeyNames;
import dev.outboxer.spi.Setting;
import dev.outboxer.spi.SettingsDeclaration;
import java.util.List;
import java.util.Locale;

/**
 * Renders the configuration reference from settings declarations: one table per declaration, one
 * row per key, with its environment-variable form, type, range, default and meaning.
 */
final class ConfigurationReference {

  private ConfigurationReference() {}

  static String render(List<SettingsDeclaration> declarations) {
    StringBuilder page = new StringBuilder("\n");
    for (SettingsDeclaration declaration : declarations) {
      page.append("\n### `").append(declaration.prefix()).append("*`: ").append(declaration.title()).append("\n\n");
      page.append("Read by `").append(declaration.module()).append('`');
      declaration.appliesWhen().ifPresent(condition -> page.append(" when `").append(condition).append('`'));
      page.append(".\n\n");
      page.append("| key | environment variable | type | values | default | meaning |\n");
      page.append("| --- | --- | --- | --- | --- | --- |\n");
      for (Setting<?> setting : declaration.settings()) {
        String key = declaration.prefix() + setting.key();
        page.append("| `").append(key).append("` | `").append(environmentName(key)).append("` | ")
            .append(setting.type()).append(" | ").append(cell(setting.range())).append(" | ")
            .append(setting.isRequired() ? "required" : setting.defaultText()
                .map(text -> isValue(setting, text) ? "`" + cell(text) + "`" : cell(text)).orElse("none"))
            .append(" | ").append(cell(setting.meaning()))
            .append(setting.isSecret() && !setting.meaning().contains("never") ? " (never shown in messages)" : "")
            .append(" |\n");
      }
      declaration.passThroughMeaning().ifPresent(meaning -> {
        String key = declaration.prefix() + "<property>";
        page.append("| `").append(key).append("` | `").append(environmentName(key)).append("` | | | | ")
            .append(cell(meaning)).append(" |\n");
      });
    }
    page.append("\n");
    return page.toString();
  }

  /** Whether a default's text is the value itself, in the key's own spelling (shown as code), or a description. */
  private static <T> boolean isValue(Setting<T> setting, String text) {
    return setting.defaultValue().map(setting::format).filter(text::equals).isPresent() && !text.isEmpty();
  }

  /**
   * The environment variable of a key as the reference writes it: {@code outbox.<name>.max-attempts} is {@code
   * OUTBOX_<NAME>_MAX_ATTEMPTS}.
   */
  static String environmentName(String key) {
    StringBuilder name = new StringBuilder();
    String[] parts = key.split("<", -1);
    name.append(ConfigKeyNames.environmentName(parts[0]));
    for (int i = 1; i < parts.length; i++) {
      int close = parts[i].indexOf('>');
      name.append('<').append(parts[i], 0, close).append('>');
      name.append(ConfigKeyNames.environmentName(parts[i].substring(close + 1)));
    }
    return name.toString().toUpperCase(Locale.ROOT);
  }

  private static String cell(String text) {
    return text.replace("|", "\\|").replace("\n", " ");
  }
}
