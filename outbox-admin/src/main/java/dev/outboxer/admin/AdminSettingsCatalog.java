package dev.outboxer.admin;

import dev.outboxer.spi.Setting;
import dev.outboxer.spi.SettingsCatalog;
import dev.outboxer.spi.SettingsDeclaration;
import java.util.List;

/**
 * outbox-admin's configuration keys, {@code outbox.admin.*}, declared once. Listed for the
 * configuration reference through {@link java.util.ServiceLoader} ({@code
 * META-INF/services/dev.outboxer.spi.SettingsCatalog}).
 *
 * <p>What it guarantees: the admin API reads exactly these keys, with a {@link
 * dev.outboxer.spi.SettingsReader} of this declaration, so any other {@code outbox.admin.*} key
 * (and a blank role) fails the deployment, naming the key. What it does not: the role's members;
 * the server's security configuration binds users or groups to the role.
 */
public final class AdminSettingsCatalog implements SettingsCatalog {

  /** {@code outbox.admin.role}. */
  static final Setting<String> ROLE = Setting.text("role").withDefault("outbox-admin")
      .meaning("the role every caller of the admin API and the console needs");

  /** The keys under {@code outbox.admin.}. */
  static final SettingsDeclaration DECLARATION = SettingsDeclaration.of("admin API", "outbox-admin",
      "outbox.admin.", ROLE);

  /** For {@link java.util.ServiceLoader}: the catalog of outbox-admin's keys. */
  public AdminSettingsCatalog() {}

  /** @return the declaration of {@code outbox.admin.*} */
  @Override
  public List<SettingsDeclaration> declarations() {
    return List.of(DECLARATION);
  }
}
