package dev.outboxer.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import java.net.http.HttpResponse;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The console's files are served from the jar with headers that keep other origins out, and load
 * nothing from elsewhere; {@code outbox.admin.role} replaces the default role.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleAndRoleTest {

  /** Any absolute or protocol-relative URL: the console must not load code, styles or fonts from elsewhere. */
  private static final Pattern FOREIGN_URL = Pattern.compile("(https?:)?//[a-z0-9]", Pattern.CASE_INSENSITIVE);

  private OutboxTestContainer container;
  private AdminServer server;

  @BeforeAll
  void start() {
    container = OutboxTestContainer.builder(TestDatabase.H2)
        .config("outbox.orders.relay", "recording")
        .config("outbox.admin.role", "ops")
        .beans(RecordingRelay.class)
        .start();
    server = new AdminServer(container);
  }

  @AfterAll
  void stop() {
    if (server != null) {
      server.close();
    }
    if (container != null) {
      container.close();
    }
  }

  @Test
  void the_configured_role_admits_its_members_and_refuses_the_default_role() {
    HttpResponse<String> lead = server.send(server.request("api/outboxes", "lead"));
    HttpResponse<String> operator = server.send(server.request("api/outboxes", "operator"));

    assertThat(lead.statusCode()).as(lead.body()).isEqualTo(200);
    assertThat(lead.body()).contains("\"name\":\"orders\"");
    assertThat(operator.statusCode()).isEqualTo(403);
    assertThat(operator.body()).contains("'operator' is not in the role 'ops'");
  }

  @Test
  void the_console_page_is_served_without_credentials_with_a_strict_content_security_policy() {
    HttpResponse<String> page = server.send(server.request("", null).header("Accept", "text/html"));

    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type)
        .startsWith("text/html"));
    assertThat(page.body()).contains("<title>Outboxer console</title>").contains("src=\"console.js\"");
    assertThat(page.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(policy -> assertThat(policy)
        .contains("default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"));
    assertThat(page.headers().firstValue("X-Frame-Options")).hasValue("DENY");
  }

  @Test
  void the_console_without_its_trailing_slash_redirects_so_that_relative_links_resolve() {
    HttpResponse<String> redirect = server.send(server.request("/" + OutboxAdminApplication.PATH, null));

    assertThat(redirect.statusCode()).isEqualTo(303);
    assertThat(redirect.headers().firstValue("Location")).hasValueSatisfying(location -> assertThat(location)
        .endsWith("/" + OutboxAdminApplication.PATH + "/"));
  }

  @Test
  void script_and_style_sheet_are_served_and_no_console_file_loads_anything_from_another_origin() {
    for (String file : new String[] {"", "console.js", "console.css"}) {
      HttpResponse<String> response = server.send(server.request(file, null).header("Accept", "*/*"));
      assertThat(response.statusCode()).as(file).isEqualTo(200);
      assertThat(FOREIGN_URL.matcher(response.body()).find()).as("a foreign URL in '" + file + "'").isFalse();
    }
    assertThat(server.send(server.request("console.js", null)).headers().firstValue("Content-Type"))
        .hasValueSatisfying(type -> assertThat(type).startsWith("text/javascript"));
    assertThat(server.send(server.request("secrets.txt", null)).statusCode()).isEqualTo(404);
  }
}
