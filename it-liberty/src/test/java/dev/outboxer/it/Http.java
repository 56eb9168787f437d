package dev.outboxer.it;

import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A plain HTTP client for the {@code @RunAsClient} tests (no JSON library on the client: regexes). */
final class Http {

  record Response(int status, String body, HttpHeaders headers) {

    /** The first value of a response header, or null. */
    String header(String name) {
      return headers.firstValue(name).orElse(null);
    }

    long longField(String name) {
      Matcher matcher = Pattern.compile("\"" + name + "\":(\\d+)").matcher(body);
      if (!matcher.find()) {
        throw new AssertionError("no numeric field " + name + " in " + body);
      }
      return Long.parseLong(matcher.group(1));
    }
  }

  private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final URI root;

  Http(URL base) {
    this.root = URI.create("http://" + base.getHost() + ":" + base.getPort() + "/");
  }

  /** The server root (where /metrics lives). */
  URI root() {
    return root;
  }

  Response get(URI uri) {
    return send(HttpRequest.newBuilder(uri).GET());
  }

  Response postJson(URI uri, String json) {
    return send(HttpRequest.newBuilder(uri).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json)));
  }

  Response post(URI uri) {
    return send(HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.noBody()));
  }

  /**
   * Any request: {@code body} null for none (else sent as JSON), {@code headers} as name, value
   * pairs (for example {@code "Authorization", Http.basic("admin", "secret")}).
   */
  Response send(String method, URI uri, String body, String... headers) {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri).method(method,
        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return send(request);
  }

  /** The value of an {@code Authorization} header with HTTP Basic credentials. */
  static String basic(String user, String password) {
    return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  private Response send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> response = client.send(request.timeout(Duration.ofSeconds(30)).build(),
          HttpResponse.BodyHandlers.ofString());
      return new Response(response.statusCode(), response.body(), response.headers());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The value of a Prometheus sample line {@code <name>{...outbox="<outbox>"...} <value>}, or 0 if
   * the metric is not there yet (Outboxer registers counters on first use).
   */
  static double sample(String metrics, String name, String outbox) {
    Matcher matcher = Pattern.compile("(?m)^" + Pattern.quote(name) + "\\{([^}]*)\\} (\\S+)$").matcher(metrics);
    while (matcher.find()) {
      if (matcher.group(1).contains("outbox=\"" + outbox + "\"")) {
        return Double.parseDouble(matcher.group(2));
      }
    }
    return 0;
  }

  static boolean hasSample(String metrics, String name, String outbox) {
    return Pattern.compile("(?m)^" + Pattern.quote(name) + "\\{[^}]*outbox=\"" + Pattern.quote(outbox) + "\"[^}]*\\} \\S+$")
        .matcher(metrics).find();
  }
}
