package dev.outboxer.rabbitmq;

import dev.outboxer.spi.SettingsCatalog;
import dev.outboxer.spi.SettingsDeclaration;
import java.util.List;

/**
 * The RabbitMQ relay's configuration keys, {@code outbox.<name>.rabbitmq.*}, for the configuration
 * reference: registered in {@code META-INF/services/dev.outboxer.spi.SettingsCatalog}.
 *
 * <p>What it guarantees: the declaration listed here is the one the relay reads its settings with
 * (at {@link RabbitRelayProvider#validate} and {@link RabbitRelayProvider#create}), so the reference
 * and what the relay accepts cannot differ. What it does not: it reads nothing and checks nothing
 * itself, and it cannot list the rules between keys (the confirm timeout shorter than the relay
 * timeout, the connection timeout at most the confirm timeout); the relay checks those when it
 * reads.
 */
public final class RabbitSettingsCatalog implements SettingsCatalog {

  /** For {@link java.util.ServiceLoader}. */
  public RabbitSettingsCatalog() {}

  /** @return the one declaration of the {@code outbox.<name>.rabbitmq.*} keys */
  @Override
  public List<SettingsDeclaration> declarations() {
    return List.of(RabbitSettings.DECLARATION);
  }
}
