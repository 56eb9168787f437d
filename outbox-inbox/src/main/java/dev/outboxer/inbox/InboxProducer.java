package dev.outboxer.inbox;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.spi.ConfigKeyNames;
import dev.outboxer.OutboxPersistence;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.enterprise.util.AnnotationLiteral;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.Config;

/**
 * Makes the {@link Inbox} injectable in Jakarta EE (and CDI in Java SE), configured with
 * MicroProfile Config and checked when the application starts: a missing data source, missing
 * tables or a bad key fail the deployment with a message naming the key and the fix.
 *
 * <table>
 *   <caption>Configuration</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@value #DATASOURCE}</td><td>the {@code @OutboxPersistence} data source bean, else the
 *       JNDI name in {@code outbox.datasource}</td><td>JNDI name of the JTA data source of the
 *       consumer's transaction, where the inbox tables are</td></tr>
 *   <tr><td>{@value #SCHEMA}</td><td>{@value #DEFAULT_SCHEMA}</td><td>{@code validate}: check the
 *       tables at start; {@code none}: do not</td></tr>
 *   <tr><td>{@code outbox.<name>.}{@value #DEDUPLICATE}</td><td>{@value #DEFAULT_DEDUPLICATE}</td>
 *       <td>{@code group}: the last id per group (ungrouped messages by id); {@code id}: every
 *       message of outbox {@code <name>} by its id, for an outbox with ordering {@code none} or a
 *       consumer that does not receive each group in order</td></tr>
 * </table>
 * Any other key under {@code outbox.inbox.} or {@code outbox.<name>.inbox.} fails the deployment.
 */
@ApplicationScoped
public class InboxProducer {

  /** JNDI name of the data source whose connections join the consumer's transaction. */
  public static final String DATASOURCE = "outbox.inbox.datasource";

  /** Whether to check the tables at start: {@code validate} or {@code none}. */
  public static final String SCHEMA = "outbox.inbox.schema";

  /** The tables are checked at start by default. */
  public static final String DEFAULT_SCHEMA = "validate";

  /** Per outbox, after {@code outbox.<name>.}: {@code group} or {@code id}. */
  public static final String DEDUPLICATE = "inbox.deduplicate";

  /** By group by default. */
  public static final String DEFAULT_DEDUPLICATE = "group";

  /** The core's key naming its data source: the inbox's fallback, for a consumer in the same application. */
  static final String OUTBOX_DATASOURCE = "outbox.datasource";

  private static final Pattern PER_OUTBOX = Pattern.compile("outbox\\.([^.]+)\\.inbox\\.(.+)");

  @Inject Config config;
  @Inject @Any Instance<DataSource> dataSources;

  private volatile Inbox inbox;

  /** For CDI. */
  public InboxProducer() {}

  @Inject InboxUsage usage;

  /**
   * Builds the inbox when the application starts, so that a bad setting or missing tables fail the
   * deployment: in an application that injects the inbox or sets one of its keys. Others (a
   * publisher with {@code outbox-inbox} on its class path) are not asked to configure it; should
   * one look the inbox up programmatically, a problem is then reported at that lookup.
   */
  void start(@Observes @Initialized(ApplicationScoped.class) Object applicationStarted) {
    if (usage.injected() || configured()) {
      inbox();
    }
  }

  /** Whether any key of the inbox is set, in any form (environment variables too). */
  private boolean configured() {
    ConfigKeyNames.Resolved names = ConfigKeyNames.resolve(config.getPropertyNames(), List.of(DATASOURCE, SCHEMA,
        "outbox.inbox." + ConfigKeyNames.ANY, "outbox." + ConfigKeyNames.NAME + ".inbox." + ConfigKeyNames.ANY));
    for (String key : names.keys()) {
      if (key.startsWith("outbox.inbox.") || PER_OUTBOX.matcher(key).matches()) {
        return true;
      }
    }
    return false;
  }

  /**
   * @return the application's inbox, built once
   * @throws OutboxConfigurationException naming the key if the configuration is wrong
   * @throws InboxException if the tables are missing
   */
  @Produces
  public Inbox inbox() {
    Inbox built = inbox;
    if (built == null) {
      synchronized (this) {
        built = inbox;
        if (built == null) {
          built = build();
          inbox = built;
        }
      }
    }
    return built;
  }

  private Inbox build() {
    Set<String> byId = new LinkedHashSet<>();
    List<OutboxConfigurationException> problems = new ArrayList<>();
    boolean checkSchema = true;
    // Environment variables are reported by their own names: OUTBOX_INBOX_SCHEMA stands for outbox.inbox.schema.
    ConfigKeyNames.Resolved names = ConfigKeyNames.resolve(config.getPropertyNames(), List.of(DATASOURCE, SCHEMA,
        "outbox.inbox." + ConfigKeyNames.ANY, "outbox." + ConfigKeyNames.NAME + "." + DEDUPLICATE,
        "outbox." + ConfigKeyNames.NAME + ".inbox." + ConfigKeyNames.ANY));
    Set<String> variables = new TreeSet<>();
    for (String key : names.keys()) {
      String written = names.written(key);
      if (!written.equals(key) && !variables.add(written)) {
        continue; // a variable's dotted twin beside its own key: one variable, checked once
      }
      if (key.startsWith("outbox.inbox.") && !key.equals(DATASOURCE) && !key.equals(SCHEMA)) {
        problems.add(new OutboxConfigurationException(key, written + " is not a key of the inbox; its keys are "
            + DATASOURCE + ", " + SCHEMA + " and outbox.<name>." + DEDUPLICATE + "."
            + ConfigKeyNames.didYouMean(written, List.of(DATASOURCE, SCHEMA))));
        continue;
      }
      Matcher perOutbox = PER_OUTBOX.matcher(key);
      if (perOutbox.matches()) {
        if (!perOutbox.group(2).equals(DEDUPLICATE.substring("inbox.".length()))) {
          String known = "outbox." + perOutbox.group(1) + "." + DEDUPLICATE;
          problems.add(new OutboxConfigurationException(key, written + " is not a key of the inbox; per outbox its"
              + " key is " + known + "." + ConfigKeyNames.didYouMean(written, List.of(known))));
          continue;
        }
        String value = value(key).orElse(DEFAULT_DEDUPLICATE).toLowerCase(Locale.ROOT);
        if (value.equals("id")) {
          byId.add(perOutbox.group(1));
        } else if (!value.equals("group")) {
          problems.add(new OutboxConfigurationException(key, key + "=" + value + " is not valid: use group (the last"
              + " id per group) or id (every id, for an outbox with ordering none)"));
        }
      }
    }
    String schema = value(SCHEMA).orElse(DEFAULT_SCHEMA).toLowerCase(Locale.ROOT);
    if (schema.equals("none")) {
      checkSchema = false;
    } else if (!schema.equals("validate")) {
      problems.add(new OutboxConfigurationException(SCHEMA, SCHEMA + "=" + schema
          + " is not valid: use validate (check the inbox tables at start) or none"));
    }
    if (!problems.isEmpty()) {
      OutboxConfigurationException first = problems.get(0);
      problems.stream().skip(1).forEach(first::addSuppressed);
      throw first;
    }
    return Inbox.builder(dataSource()).deduplicateById(byId.toArray(String[]::new)).checkSchema(checkSchema).build();
  }

  private DataSource dataSource() {
    Optional<String> jndiName = value(DATASOURCE);
    if (jndiName.isPresent()) {
      return lookup(DATASOURCE, jndiName.get());
    }
    Instance<DataSource> outboxDataSource = dataSources.select(new OutboxPersistenceLiteral());
    if (outboxDataSource.isResolvable()) {
      return outboxDataSource.get();
    }
    Optional<String> outboxJndiName = value(OUTBOX_DATASOURCE);
    if (outboxJndiName.isPresent()) {
      return lookup(OUTBOX_DATASOURCE, outboxJndiName.get());
    }
    throw new OutboxConfigurationException(DATASOURCE, DATASOURCE + " is not set, and there is neither an"
        + " @OutboxPersistence DataSource bean nor " + OUTBOX_DATASOURCE + ": set " + DATASOURCE + " to the JNDI name"
        + " of the JTA data source your consumer's transaction writes to, for example jdbc/orders");
  }

  private static DataSource lookup(String key, String name) {
    Object found;
    try {
      found = new InitialContext().lookup(name);
    } catch (NamingException e) {
      throw new OutboxConfigurationException(key, key + "=" + name + " could not be looked up (" + e + "): give the"
          + " JNDI name of the JTA data source your consumer's transaction writes to, for example jdbc/orders");
    }
    if (found instanceof DataSource dataSource) {
      return dataSource;
    }
    throw new OutboxConfigurationException(key, key + "=" + name + " is a " + found.getClass().getName()
        + ", not a javax.sql.DataSource");
  }

  private Optional<String> value(String key) {
    return config.getOptionalValue(key, String.class).map(String::trim).filter(value -> !value.isEmpty());
  }

  /** The {@link OutboxPersistence} qualifier, to find the application's data source bean. */
  @SuppressWarnings("all")
  private static final class OutboxPersistenceLiteral extends AnnotationLiteral<OutboxPersistence>
      implements OutboxPersistence {}
}
