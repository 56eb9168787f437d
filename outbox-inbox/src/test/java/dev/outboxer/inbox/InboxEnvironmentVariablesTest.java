package dev.outboxer.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 25, item 1: the injected inbox configured by environment variables (SmallRye's real
 * environment source, built from a map), in the Java SE container of real parts on H2: every key
 * read, a misspelt variable refused as written, and system property &gt; environment &gt; file.
 */
class InboxEnvironmentVariablesTest {

  private static final TestDatabase DATABASE = TestDatabase.H2;

  @BeforeEach
  void createTables() {
    InboxTestSchema.reset(DATABASE);
  }

  private static OutboxTestContainer start(Map<String, String> env, Map<String, String> file,
      Map<String, String> systemProperties) {
    Map<String, String> environment = new HashMap<>(env);
    environment.put("PATH", "/usr/bin");
    return OutboxTestContainer.builder(DATABASE).onlyGivenConfig().viaDataSource()
        .configSources(new EnvConfigSource(environment, 300), new PropertiesConfigSource(systemProperties, "sys", 400),
            new PropertiesConfigSource(file, "file", 100))
        .start();
  }

  /** Whether the inbox deduplicates outbox "audit" by id: then a lower id of a group is still accepted. */
  private static boolean byId(OutboxTestContainer container) throws Exception {
    Inbox inbox = container.select(Inbox.class);
    assertThat(container.<Boolean>inTransaction(() -> inbox.accept("audit", "user:1", 9))).isTrue();
    return container.<Boolean>inTransaction(() -> inbox.accept("audit", "user:1", 5));
  }

  @Test
  void every_inbox_key_set_as_an_environment_variable_is_read() throws Exception {
    try (OutboxTestContainer container = start(Map.of("OUTBOX_AUDIT_INBOX_DEDUPLICATE", "id",
        "OUTBOX_INBOX_SCHEMA", "validate"), Map.of(), Map.of())) {
      assertThat(byId(container)).isTrue();
    }
    InboxTestSchema.drop(DATABASE);
    try (OutboxTestContainer container = start(Map.of("OUTBOX_INBOX_SCHEMA", "none"), Map.of(), Map.of())) {
      assertThat(container.select(Inbox.class)).as("tables not checked").isNotNull();
    }
    assertThatThrownBy(() -> start(Map.of("OUTBOX_INBOX_DATASOURCE", "jdbc/consumer"), Map.of(), Map.of()).close())
        .satisfies(failure -> assertThat(cause(failure, OutboxConfigurationException.class))
            .hasMessageContaining("outbox.inbox.datasource=jdbc/consumer could not be looked up"));
  }

  @Test
  void the_retention_keys_set_as_environment_variables_are_read() throws Exception {
    try (OutboxTestContainer container = start(Map.of("OUTBOX_INBOX_RETENTION", "7d",
        "OUTBOX_INBOX_RETENTION_INTERVAL", "1s", "OUTBOX_INBOX_RETENTION_CHUNK_SIZE", "1"), Map.of(), Map.of())) {
      Inbox inbox = container.select(Inbox.class);
      for (int group = 0; group < 3; group++) {
        String key = "order:" + group;
        assertThat(container.<Boolean>inTransaction(() -> inbox.accept("orders", key, 5))).isTrue();
      }
      container.clock().advance(java.time.Duration.ofDays(8));
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20)).untilAsserted(() ->
          assertThat(container.<Boolean>inTransaction(() -> inbox.accept("orders", "order:0", 5)))
              .as("a copy of a forgotten message is accepted again").isTrue());
    }
    assertThatThrownBy(() -> start(Map.of("OUTBOX_INBOX_RETENTION_CHUNK_SIZE", "0"), Map.of(), Map.of()).close())
        .satisfies(failure -> assertThat(cause(failure, OutboxConfigurationException.class).key())
            .isEqualTo("outbox.inbox.retention-chunk-size"));
  }

  @Test
  void a_misspelt_inbox_environment_variable_is_refused_as_written_with_the_suggestion() {
    assertThatThrownBy(() -> start(Map.of("OUTBOX_INBOX_SCHEME", "none"), Map.of(), Map.of()).close())
        .satisfies(failure -> assertThat(cause(failure, OutboxConfigurationException.class))
            .hasMessageContaining("OUTBOX_INBOX_SCHEME").hasMessageContaining("Did you mean OUTBOX_INBOX_SCHEMA?"));
    assertThatThrownBy(() -> start(Map.of("OUTBOX_AUDIT_INBOX_DEDUPLICATES", "id"), Map.of(), Map.of()).close())
        .satisfies(failure -> assertThat(cause(failure, OutboxConfigurationException.class))
            .hasMessageContaining("OUTBOX_AUDIT_INBOX_DEDUPLICATES")
            .hasMessageContaining("Did you mean OUTBOX_AUDIT_INBOX_DEDUPLICATE?"));
  }

  @Test
  void the_environment_overrides_the_file_and_a_system_property_overrides_the_environment() throws Exception {
    Map<String, String> file = Map.of("outbox.audit.inbox.deduplicate", "group");
    Map<String, String> env = Map.of("OUTBOX_AUDIT_INBOX_DEDUPLICATE", "id");
    try (OutboxTestContainer container = start(env, file, Map.of())) {
      assertThat(byId(container)).as("environment over file").isTrue();
    }
    InboxTestSchema.reset(DATABASE);
    try (OutboxTestContainer container = start(env, file, Map.of("outbox.audit.inbox.deduplicate", "group"))) {
      assertThat(byId(container)).as("system property over environment").isFalse();
    }
  }

  private static <T extends Throwable> T cause(Throwable failure, Class<T> type) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (type.isInstance(cause)) {
        return type.cast(cause);
      }
    }
    throw new AssertionError("No " + type.getSimpleName() + " in the cause chain of " + failure, failure);
  }
}
