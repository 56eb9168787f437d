package dev.outboxer.spi;

import java.util.List;

/**
 * The configuration keys a module reads, for the configuration reference: each module lists its
 * {@link SettingsDeclaration}s in an implementation registered in {@code
 * META-INF/services/dev.outboxer.spi.SettingsCatalog}. The manual's reference ({@code
 * docs/reference/configuration.md}) is generated from every catalog on the class path, and a test
 * fails when the page and the declarations differ.
 *
 * <p>A catalog only describes; it reads nothing. What the module accepts is what its {@link
 * SettingsReader} accepts with the same declarations, so the two cannot disagree.
 */
public interface SettingsCatalog {

  /** @return the module's declarations, in the order the reference lists them */
  List<SettingsDeclaration> declarations();
}
