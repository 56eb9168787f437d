package dev.outboxer.admin;

import com.sun.net.httpserver.HttpServer;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.testing.OutboxTestContainer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.glassfish.jersey.internal.inject.AbstractBinder;
import org.glassfish.jersey.jdkhttp.JdkHttpServerFactory;
import org.glassfish.jersey.server.ResourceConfig;

/**
 * The admin application in Jersey on the JDK's HTTP server, on a free port, its OutboxAdmin and
 * settings taken from a running Outboxer container; with a small HTTP client for the tests.
 */
final class AdminServer implements AutoCloseable {

  private final HttpServer server;
  private final URI base;
  private final HttpClient client = HttpClient.newHttpClient();

  AdminServer(OutboxTestContainer container) {
    this(container.select(OutboxAdmin.class), container.select(AdminSettings.class));
  }

  /** The application on a given OutboxAdmin: a test double that fails as a test needs. */
  AdminServer(OutboxAdmin admin, AdminSettings settings) {
    ResourceConfig application = ResourceConfig.forApplication(new OutboxAdminApplication())
        .register(BasicAuthentication.class)
        .register(new AbstractBinder() {
          @Override
          protected void configure() {
            bind(admin).to(OutboxAdmin.class);
            bind(settings).to(AdminSettings.class);
          }
        });
    // Jersey adds the application's @ApplicationPath to this root, as a servlet container would.
    server = JdkHttpServerFactory.createHttpServer(URI.create("http://127.0.0.1:0/"), application);
    base = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/" + OutboxAdminApplication.PATH + "/");
  }

  URI base() {
    return base;
  }

  /** A request to a path under the application, as {@code user} (null: no credentials). */
  HttpRequest.Builder request(String path, String user) {
    HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path)).header("Accept", "application/json");
    return user == null ? request : request.header("Authorization", BasicAuthentication.header(user));
  }

  HttpResponse<String> send(HttpRequest.Builder request) {
    try {
      return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
