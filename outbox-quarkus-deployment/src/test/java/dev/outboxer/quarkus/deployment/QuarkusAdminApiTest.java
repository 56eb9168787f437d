package dev.outboxer.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import dev.outboxer.testing.TestOrder;
import io.quarkus.test.QuarkusUnitTest;
import io.quarkus.test.common.http.TestHTTPResource;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * outbox-admin in a Quarkus application with Quarkus REST: the API at {@code /outbox-admin/api} and
 * the console at {@code /outbox-admin/}, next to the application's own resources, callers
 * authenticated by HTTP Basic against Quarkus' embedded users ({@code admin} in the role
 * {@code outbox-admin}, {@code viewer} in none). A dead message is listed and retried for the admin;
 * a caller without credentials gets 401 and one without the role 403.
 */
class QuarkusAdminApiTest {

  @RegisterExtension
  static final QuarkusUnitTest APP = QuarkusTestApplication.on(TestDatabase.POSTGRESQL, OrderPlaced.class,
          ShipmentRequested.class, OrderService.class, RecordingRelay.class, TestOrder.class, PingResource.class)
      .overrideConfigKey("outbox.orders.relay", "recording")
      .overrideConfigKey("outbox.orders.max-attempts", "1")
      .overrideConfigKey("outbox.shipping.relay", "recording")
      .overrideConfigKey("quarkus.http.auth.basic", "true")
      .overrideConfigKey("quarkus.security.users.embedded.enabled", "true")
      .overrideConfigKey("quarkus.security.users.embedded.plain-text", "true")
      .overrideConfigKey("quarkus.security.users.embedded.users.admin", "admin-secret")
      .overrideConfigKey("quarkus.security.users.embedded.roles.admin", "outbox-admin")
      .overrideConfigKey("quarkus.security.users.embedded.users.viewer", "viewer-secret")
      .overrideConfigKey("quarkus.security.users.embedded.roles.viewer", "viewer");

  /** The application's own resource: outbox-admin must not take the application's REST resources away. */
  @Path("ping")
  public static class PingResource {
    @GET
    public String ping() {
      return "pong";
    }
  }

  private static final String ADMIN = basic("admin", "admin-secret");
  private static final String VIEWER = basic("viewer", "viewer-secret");

  @TestHTTPResource("/") URL root;
  @Inject OrderService orders;
  @Inject RecordingRelay relay;

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  @Test
  void listsADeadMessageAndRetriesItForACallerInTheRole() throws Exception {
    relay.failGroup("dora");
    orders.place(700, "dora", 1, false, false);

    String dead = awaitDeadListed("orders", "dora");
    Matcher id = Pattern.compile("\"id\":(\\d+)").matcher(dead);
    assertThat(id.find()).as("a dead message's id in %s", dead).isTrue();
    long deadId = Long.parseLong(id.group(1));
    assertThat(dead).contains("\"groupKey\":\"dora\"");

    relay.recoverGroup("dora");
    HttpResponse<String> retried = send(HttpRequest.newBuilder(uri("outbox-admin/api/outboxes/orders/messages/" + deadId
        + "/retry")).header("Authorization", ADMIN).header("X-Outbox-Admin", "1")
        .POST(HttpRequest.BodyPublishers.noBody()));
    assertThat(retried.statusCode()).as(retried.body()).isEqualTo(200);
    assertThat(retried.body()).contains("\"action\":\"retry\"").contains("\"changed\":1");

    // Relayed again under a new id.
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (ids(relay.confirmedIdsByGroup().get("dora")).isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(ids(relay.confirmedIdsByGroup().get("dora"))).hasSize(1).doesNotContain(deadId);
    assertThat(get("outbox-admin/api/outboxes/orders/dead?group=dora", ADMIN).body()).contains("\"messages\":[]");
  }

  @Test
  void refusesACallerWithoutCredentialsWith401AndOneWithoutTheRoleWith403() throws Exception {
    HttpResponse<String> anonymous = get("outbox-admin/api/outboxes", null);
    assertThat(anonymous.statusCode()).as(anonymous.body()).isEqualTo(401);
    HttpResponse<String> viewer = get("outbox-admin/api/outboxes", VIEWER);
    assertThat(viewer.statusCode()).as(viewer.body()).isEqualTo(403);
    assertThat(viewer.body()).contains("outbox-admin");
    HttpResponse<String> viewerRetry = send(HttpRequest.newBuilder(uri("outbox-admin/api/outboxes/orders/retry"))
        .header("Authorization", VIEWER).header("X-Outbox-Admin", "1").header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"group\":\"dora\"}")));
    assertThat(viewerRetry.statusCode()).as(viewerRetry.body()).isEqualTo(403);

    HttpResponse<String> admin = get("outbox-admin/api/outboxes", ADMIN);
    assertThat(admin.statusCode()).as(admin.body()).isEqualTo(200);
    assertThat(admin.body()).contains("\"name\":\"orders\"").contains("\"name\":\"shipping\"");
  }

  @Test
  void servesTheConsoleAndKeepsTheApplicationsOwnResources() throws Exception {
    HttpResponse<String> console = get("outbox-admin/", null);
    assertThat(console.statusCode()).isEqualTo(200);
    assertThat(console.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type)
        .startsWith("text/html"));
    assertThat(console.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(policy -> assertThat(policy)
        .contains("default-src 'none'"));
    assertThat(console.body()).contains("console.js");
    assertThat(get("outbox-admin/console.js", null).statusCode()).isEqualTo(200);

    HttpResponse<String> ping = get("ping", null);
    assertThat(ping.statusCode()).isEqualTo(200);
    assertThat(ping.body()).isEqualTo("pong");
  }

  private String awaitDeadListed(String outbox, String group) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    HttpResponse<String> page;
    do {
      page = get("outbox-admin/api/outboxes/" + outbox + "/dead?group=" + group, ADMIN);
      if (page.statusCode() == 200 && page.body().contains("\"groupKey\":\"" + group + "\"")) {
        return page.body();
      }
      Thread.sleep(50);
    } while (System.nanoTime() < deadline);
    throw new AssertionError("no dead message of group " + group + " listed: " + page.statusCode() + " " + page.body());
  }

  private HttpResponse<String> get(String path, String authorization) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).GET();
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return send(request);
  }

  private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
    return http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private URI uri(String path) throws Exception {
    return root.toURI().resolve(path);
  }

  private static List<Long> ids(List<Long> ids) {
    return ids == null ? List.of() : ids;
  }

  private static String basic(String user, String password) {
    return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }
}
