package dev.outboxer.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import dev.outboxer.testing.TestOrder;
import io.quarkus.test.QuarkusUnitTest;
import io.quarkus.test.common.http.TestHTTPResource;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Application;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Quarkus service with a Jakarta REST {@code Application} of its own ({@code @ApplicationPath("shop")})
 * and outbox-admin: it builds and starts (Quarkus REST serves one application, and outbox-admin's is
 * left out), the service's resources answer under its path, and so does outbox-admin, under the
 * service's path, as on a server where an application that lists no classes takes in every resource.
 */
class QuarkusAdminBesideOwnApplicationTest {

  @RegisterExtension
  static final QuarkusUnitTest APP = QuarkusTestApplication.on(TestDatabase.POSTGRESQL, OrderPlaced.class,
          ShipmentRequested.class, RecordingRelay.class, TestOrder.class, ShopApplication.class, PingResource.class)
      .overrideConfigKey("outbox.orders.relay", "recording")
      .overrideConfigKey("outbox.shipping.relay", "recording")
      .overrideConfigKey("quarkus.http.auth.basic", "true")
      .overrideConfigKey("quarkus.security.users.embedded.enabled", "true")
      .overrideConfigKey("quarkus.security.users.embedded.plain-text", "true")
      .overrideConfigKey("quarkus.security.users.embedded.users.admin", "admin-secret")
      .overrideConfigKey("quarkus.security.users.embedded.roles.admin", "outbox-admin");

  /** The service's own application: every resource under /shop. */
  @ApplicationPath("shop")
  public static class ShopApplication extends Application {}

  /** The service's own resource. */
  @Path("ping")
  public static class PingResource {
    @GET
    public String ping() {
      return "pong";
    }
  }

  @TestHTTPResource("/") URL root;

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  @Test
  void servesTheServicesResourcesAndTheAdminApiUnderTheServicesPath() throws Exception {
    HttpResponse<String> ping = get("shop/ping", null);
    assertThat(ping.statusCode()).isEqualTo(200);
    assertThat(ping.body()).isEqualTo("pong");

    String admin = "Basic " + Base64.getEncoder().encodeToString("admin:admin-secret".getBytes(StandardCharsets.UTF_8));
    HttpResponse<String> outboxes = get("shop/outbox-admin/api/outboxes", admin);
    assertThat(outboxes.statusCode()).as(outboxes.body()).isEqualTo(200);
    assertThat(outboxes.body()).contains("\"name\":\"orders\"");
    assertThat(get("shop/outbox-admin/api/outboxes", null).statusCode()).isEqualTo(401);
    assertThat(get("shop/outbox-admin/", null).body()).contains("console.js");
  }

  private HttpResponse<String> get(String path, String authorization) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(root.toURI().resolve(path)).timeout(Duration.ofSeconds(30)).GET();
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
