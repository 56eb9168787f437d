package dev.outboxer.jms;

import dev.outboxer.spi.SettingsCatalog;
import dev.outboxer.spi.SettingsDeclaration;
import java.util.List;

/**
 * The JMS relay's configuration keys, {@code outbox.<name>.jms.*}, for the configuration
 * reference: registered in {@code META-INF/services/dev.outboxer.spi.SettingsCatalog}.
 *
 * <p>What it guarantees: the declaration listed here is the one the relay reads its settings with
 * (at {@link JmsRelayProvider#validate} and {@link JmsRelayProvider#create}), so the reference and
 * what the relay accepts cannot differ. What it does not: it reads nothing and checks nothing
 * itself; whether the names resolve (JNDI or CDI) is only known when the relay is created.
 */
public final class JmsSettingsCatalog implements SettingsCatalog {

  /** For {@link java.util.ServiceLoader}. */
  public JmsSettingsCatalog() {}

  /** @return the one declaration of the {@code outbox.<name>.jms.*} keys */
  @Override
  public List<SettingsDeclaration> declarations() {
    return List.of(JmsSettings.DECLARATION);
  }
}
