package dev.outboxer.sqs;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.StringReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A network fault in front of the real ElasticMQ: an HTTP proxy on 127.0.0.1 that forwards every
 * request unchanged, answers as SQS does when it throttles ({@link #throttle(boolean)}), or stops
 * listening so that connections are refused ({@link #down()}, {@link #up()}). It records the
 * requests it forwarded, for tests that look at how the relay split its calls, and can answer
 * slowly ({@link #delay(Duration)}). Thread-safe.
 */
final class UnreliableEndpoint implements AutoCloseable {

  /** A request the proxy forwarded: the SQS action and its JSON body. */
  record Call(String action, JsonObject body) {}

  private static final Set<String> HOP_HEADERS =
      Set.of("connection", "content-length", "host", "transfer-encoding", "expect", "upgrade");

  private final URI target;
  private final int port;
  private final HttpClient forwarder = HttpClient.newHttpClient();
  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private final AtomicInteger throttled = new AtomicInteger();
  private volatile boolean throttling;
  private volatile Duration delay = Duration.ZERO;
  private volatile Consumer<Call> afterForward = call -> {};
  private HttpServer server;
  private ExecutorService handlers;

  UnreliableEndpoint(URI target) throws IOException {
    this.target = target;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      this.port = socket.getLocalPort();
    }
    up();
  }

  URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** While on, every request is answered with SQS's throttling error instead of forwarded. */
  void throttle(boolean on) {
    throttling = on;
  }

  /** Waits this long before forwarding each request (a slow network or endpoint). */
  void delay(Duration wait) {
    delay = wait;
  }

  /** How many requests were answered with the throttling error. */
  int throttledRequests() {
    return throttled.get();
  }

  /** Stops listening: connections to the endpoint are refused. */
  synchronized void down() {
    if (server != null) {
      server.stop(0);
      server = null;
      handlers.shutdown(); // a handler still running finishes, but its answer has nowhere to go
    }
  }

  /** Listens again, on the same port. */
  synchronized void up() throws IOException {
    if (server == null) {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
      server.createContext("/", this::handle);
      handlers = Executors.newFixedThreadPool(8, runnable -> {
        Thread thread = new Thread(runnable, "unreliable-endpoint");
        thread.setDaemon(true);
        return thread;
      });
      server.setExecutor(handlers);
      server.start();
    }
  }

  /** Runs after each forwarded call's answer came back, before the proxy passes it on. */
  void afterForward(Consumer<Call> hook) {
    afterForward = hook;
  }

  /** The forwarded calls of one action, e.g. {@code SendMessageBatch}, in order. */
  List<Call> calls(String action) {
    return calls.stream().filter(call -> call.action().equals(action)).toList();
  }

  void clearCalls() {
    calls.clear();
  }

  @Override
  public void close() {
    down();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      byte[] body;
      try (InputStream in = exchange.getRequestBody()) {
        body = in.readAllBytes();
      }
      String amzTarget = exchange.getRequestHeaders().getFirst("X-Amz-Target");
      String action = amzTarget == null ? "" : amzTarget.substring(amzTarget.indexOf('.') + 1);
      try {
        Thread.sleep(delay.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      if (throttling) {
        throttled.incrementAndGet();
        respond(exchange, 400, "{\"__type\":\"com.amazonaws.sqs#ThrottlingException\","
            + "\"message\":\"Rate exceeded\"}", "ThrottlingException");
        return;
      }
      HttpRequest.Builder request = HttpRequest.newBuilder(
              target.resolve(exchange.getRequestURI().toString()))
          .method(exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
      exchange.getRequestHeaders().forEach((name, values) -> {
        if (!HOP_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
          values.forEach(value -> request.header(name, value));
        }
      });
      HttpResponse<byte[]> response;
      try {
        response = forwarder.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        respond(exchange, 503, "{}", null);
        return;
      }
      Call call = new Call(action, json(body));
      calls.add(call);
      afterForward.accept(call);
      response.headers().map().forEach((name, values) -> {
        if (!HOP_HEADERS.contains(name.toLowerCase(Locale.ROOT)) && !name.startsWith(":")) {
          exchange.getResponseHeaders().put(name, values);
        }
      });
      exchange.sendResponseHeaders(response.statusCode(),
          response.body().length == 0 ? -1 : response.body().length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(response.body());
      }
    }
  }

  private static void respond(HttpExchange exchange, int status, String json, String errorType)
      throws IOException {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/x-amz-json-1.0");
    if (errorType != null) {
      exchange.getResponseHeaders().add("x-amzn-query-error", errorType + ";Sender");
    }
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static JsonObject json(byte[] body) {
    if (body.length == 0) {
      return JsonObject.EMPTY_JSON_OBJECT;
    }
    try (JsonReader reader = Json.createReader(
        new StringReader(new String(body, StandardCharsets.UTF_8)))) {
      return reader.readObject();
    } catch (RuntimeException notJson) {
      return JsonObject.EMPTY_JSON_OBJECT;
    }
  }
}
