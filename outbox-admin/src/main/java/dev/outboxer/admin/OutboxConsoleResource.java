package dev.outboxer.admin;

import jakarta.enterprise.context.RequestScoped;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.Map;

/**
 * Serves the operator console: one HTML page, one style sheet and one script from this jar, nothing
 * from elsewhere. The files hold no data and are served to anyone; the data comes from the API,
 * which checks every call. The answers forbid framing (no click-jacking) and any script, style or
 * connection from another origin.
 */
@Path("/")
@RequestScoped
public class OutboxConsoleResource {

  private static final Map<String, String> FILES = Map.of(
      "index.html", "text/html; charset=UTF-8",
      "console.css", "text/css; charset=UTF-8",
      "console.js", "text/javascript; charset=UTF-8");

  private static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self';"
      + " connect-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

  @Context UriInfo uri;

  /** The console page. Without the trailing slash it redirects, so that the page's relative links work. */
  @GET
  public Response page() {
    String path = uri.getRequestUri().getRawPath();
    if (!path.endsWith("/")) {
      return Response.seeOther(URI.create(path + "/")).build();
    }
    return file("index.html");
  }

  /** The console's style sheet and script. */
  @GET
  @Path("{file:console\\.(css|js)}")
  public Response asset(@PathParam("file") String file) {
    return file(file);
  }

  private static Response file(String name) {
    String type = FILES.get(name);
    InputStream content = OutboxConsoleResource.class.getResourceAsStream("console/" + name);
    if (type == null || content == null) {
      throw new NotFoundException("No console file " + name);
    }
    try (content) {
      return Response.ok(content.readAllBytes(), type)
          .header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
          .header("X-Content-Type-Options", "nosniff")
          .header("X-Frame-Options", "DENY")
          .header("Referrer-Policy", "no-referrer")
          .header("Cache-Control", "no-cache")
          .build();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the console file " + name + " from the outbox-admin jar", e);
    }
  }
}
