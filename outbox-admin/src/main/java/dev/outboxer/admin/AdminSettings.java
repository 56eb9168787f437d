package dev.outboxer.admin;

import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Optional;
import org.eclipse.microprofile.config.ConfigProvider;

/** The admin API's settings, read once from MicroProfile Config; checked at deployment by {@link AdminExtension}. */
@ApplicationScoped
public class AdminSettings {

  private String role;

  @PostConstruct
  void read() {
    role = role(ConfigProvider.getConfig(AdminExtension.classLoader()).getOptionalValue(AdminKeys.ROLE, String.class));
  }

  /** The configured role, or the default; a blank value is a deployment problem reported by {@link AdminExtension}. */
  static String role(Optional<String> configured) {
    return configured.map(String::strip).filter(value -> !value.isEmpty()).orElse(AdminKeys.DEFAULT_ROLE);
  }

  /** @return the role every caller needs ({@code outbox.admin.role}, default {@code outbox-admin}) */
  public String role() {
    return role;
  }
}
