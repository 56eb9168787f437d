package dev.outboxer.admin;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.spi.ConfigKeyNames;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.Extension;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Checks outbox-admin's keys when the application deploys: a misspelt key or an empty role fails
 * the deployment, naming the key, instead of leaving the API guarded by a role nobody meant. Public
 * only because {@link java.util.ServiceLoader} needs it; not API.
 */
public final class AdminExtension implements Extension {

  void validate(@Observes AfterDeploymentValidation validation) {
    Config config = ConfigProvider.getConfig(classLoader());
    problems(key -> config.getOptionalValue(key, String.class), config.getPropertyNames())
        .forEach(validation::addDeploymentProblem);
  }

  /** Every problem of the {@code outbox.admin.*} keys set. */
  static List<OutboxConfigurationException> problems(Function<String, Optional<String>> lookup,
      Iterable<String> propertyNames) {
    List<OutboxConfigurationException> problems = new ArrayList<>();
    // Environment variables are reported by their own names: OUTBOX_ADMIN_ROLE stands for outbox.admin.role.
    ConfigKeyNames.Resolved names =
        ConfigKeyNames.resolve(propertyNames, List.of(AdminKeys.ROLE, AdminKeys.PREFIX + ConfigKeyNames.ANY));
    Set<String> variables = new TreeSet<>();
    for (String key : names.keys()) {
      if (!key.startsWith(AdminKeys.PREFIX) || lookup.apply(key).isEmpty()) {
        continue;
      }
      if (!names.written(key).equals(key) && !variables.add(names.written(key))) {
        continue; // a variable's dotted twin beside its own key: one variable, checked once
      }
      if (!key.equals(AdminKeys.ROLE)) {
        String written = names.written(key);
        problems.add(new OutboxConfigurationException(key, written + " is not a key of outbox-admin. Its only key is "
            + AdminKeys.ROLE + " (the role every caller of the admin API needs, default " + AdminKeys.DEFAULT_ROLE
            + ")." + ConfigKeyNames.didYouMean(written, List.of(AdminKeys.ROLE))));
      } else if (lookup.apply(key).get().isBlank()) {
        problems.add(new OutboxConfigurationException(key, key + " is blank: name the role every caller of the admin"
            + " API needs, or remove the key to use " + AdminKeys.DEFAULT_ROLE));
      }
    }
    return problems;
  }

  static ClassLoader classLoader() {
    ClassLoader context = Thread.currentThread().getContextClassLoader();
    return context != null ? context : AdminExtension.class.getClassLoader();
  }
}
