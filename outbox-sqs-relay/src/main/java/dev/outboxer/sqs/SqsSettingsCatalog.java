package dev.outboxer.sqs;

import dev.outboxer.spi.SettingsCatalog;
import dev.outboxer.spi.SettingsDeclaration;
import java.util.List;

/**
 * The SQS relay's configuration keys, {@code outbox.<name>.sqs.*}, for the configuration
 * reference: registered in {@code META-INF/services/dev.outboxer.spi.SettingsCatalog}.
 *
 * <p>What it guarantees: the declaration listed here is the one the relay reads its settings with
 * (at {@link SqsRelayProvider#validate} and {@link SqsRelayProvider#create}), so the reference and
 * what the relay accepts cannot differ. What it does not: it reads nothing and checks nothing
 * itself, and it cannot list the rules between keys (the API call timeout shorter than the relay
 * timeout, FIFO-only keys, credentials in pairs); the relay checks those when it reads.
 */
public final class SqsSettingsCatalog implements SettingsCatalog {

  /** For {@link java.util.ServiceLoader}. */
  public SqsSettingsCatalog() {}

  /** @return the one declaration of the {@code outbox.<name>.sqs.*} keys */
  @Override
  public List<SettingsDeclaration> declarations() {
    return List.of(SqsSettings.DECLARATION);
  }
}
