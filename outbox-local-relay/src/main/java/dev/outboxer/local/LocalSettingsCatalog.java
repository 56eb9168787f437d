package dev.outboxer.local;

import dev.outboxer.spi.SettingsCatalog;
import dev.outboxer.spi.SettingsDeclaration;
import java.util.List;

/**
 * The local relay's configuration keys, {@code outbox.<name>.local.*}, for the configuration
 * reference: registered in {@code META-INF/services/dev.outboxer.spi.SettingsCatalog}.
 *
 * <p>What it guarantees: the declaration listed here is the one the relay reads its settings with
 * (at {@link LocalRelayProvider#validate} and {@link LocalRelayProvider#create}), so the reference
 * and what the relay accepts cannot differ. What it does not: it reads nothing and checks nothing
 * itself; whether the names in {@code handler} are handler beans is checked against the
 * application's beans when the relay is validated.
 */
public final class LocalSettingsCatalog implements SettingsCatalog {

  /** For {@link java.util.ServiceLoader}. */
  public LocalSettingsCatalog() {}

  /** @return the one declaration of the {@code outbox.<name>.local.*} keys */
  @Override
  public List<SettingsDeclaration> declarations() {
    return List.of(LocalSettings.DECLARATION);
  }
}
