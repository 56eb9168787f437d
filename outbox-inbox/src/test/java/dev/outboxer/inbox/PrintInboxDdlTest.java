package dev.outboxer.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Issue 27: there was no DDL printer for the inbox (users took the script out of the jar with unzip -p). */
class PrintInboxDdlTest {

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  @ParameterizedTest
  @EnumSource(InboxDialect.class)
  void prints_the_script_shipped_for_each_database_byte_for_byte(InboxDialect dialect) throws Exception {
    int status = PrintInboxDdl.print(new String[] {dialect.configValue()}, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));

    assertThat(status).isZero();
    try (InputStream shipped = getClass().getClassLoader().getResourceAsStream(dialect.ddlResource())) {
      assertThat(out.toByteArray()).isEqualTo(shipped.readAllBytes());
    }
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("CREATE TABLE outbox_inbox");
  }

  @Test
  void an_unknown_database_prints_the_usage_with_the_choices_and_exits_with_2() {
    int status = PrintInboxDdl.print(new String[] {"oracle"}, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));

    assertThat(status).isEqualTo(2);
    assertThat(out.size()).isZero();
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("usage:", "postgresql", "mariadb", "h2", "sqlite");
  }
}
