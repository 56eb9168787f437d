package dev.outboxer.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.URL;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.core.ConditionFactory;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.StaleElementReferenceException;

/**
 * outbox-admin and outbox-health inside Open Liberty, in the sample application as built, called
 * from outside like an operator, a probe and a browser would: over HTTP against the server's
 * {@code appSecurity-5.0} basic registry (user {@code admin} in the group and so the role
 * {@code outbox-admin}, user {@code viewer} without it) and {@code mpHealth-4.0}. Everything runs
 * on the client ({@code testable = false}): the deployment is the sample WAR with nothing added but a
 * longer retry backoff for the {@code shipping} outbox, so that a group blocked by the simulated
 * outage stays blocked long enough (about 8 s before its message is dead) for the console's 5 s
 * refresh to show it.
 */
@RequiresPostgres
@ExtendWith(FreshPostgresSchema.class)
@ExtendWith(NoFfdcIncidents.class)
@ExtendWith(ArquillianExtension.class)
class AdminConsoleAndHealthIT {

  static final String PASSWORD = "outboxer";
  static final String ADMIN = Http.basic("admin", PASSWORD);
  static final String VIEWER = Http.basic("viewer", PASSWORD);
  static final Duration DELIVERY = Duration.ofSeconds(60);

  @Deployment(testable = false)
  static WebArchive deployment() {
    // 3 attempts, 4 s apart: about 8 s from the first failure to dead.
    return OrdersArchives.withConfig(OrdersArchives.sampleAsBuilt("orders-admin.war"),
        Map.of("outbox.shipping.backoff.min", "4s", "outbox.shipping.backoff.max", "4s"));
  }

  @ArquillianResource
  URL base;

  private Http http() {
    return new Http(base);
  }

  private URI sampleApi(String path) {
    return URI.create(base.toString()).resolve("api/" + path);
  }

  private URI adminApi(String path) {
    return URI.create(base.toString()).resolve("outbox-admin/api/" + path);
  }

  static ConditionFactory eventually(Duration atMost) {
    return await().atMost(atMost).pollInterval(Duration.ofMillis(250));
  }

  /** An order placed through the sample's API: its id and the id of its ShipmentRequested message. */
  record Order(long orderId, long shipmentId) {
    String group() {
      return "order:" + orderId;
    }
  }

  private Order placeOrder(String hint) {
    String customer = hint + "-" + UUID.randomUUID().toString().substring(0, 8);
    Http.Response placed = http().postJson(sampleApi("orders"),
        "{\"customer\":\"" + customer + "\",\"item\":\"parcel\",\"quantity\":1}");
    assertThat(placed.status()).as(placed.body()).isEqualTo(201);
    return new Order(placed.longField("orderId"), placed.longField("shipmentMessageId"));
  }

  private void shippingOutage(boolean on) {
    Http.Response answer = http().send(on ? "PUT" : "DELETE", sampleApi("shipping/outage"), null);
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
  }

  private String deadOfGroup(Order order) {
    Http.Response dead = http().send("GET", adminApi("outboxes/shipping/dead?group=" + order.group()), null,
        "Authorization", ADMIN);
    assertThat(dead.status()).as(dead.body()).isEqualTo(200);
    return dead.body();
  }

  /** True once the partner accepted a shipment of the order's group under an id above the dead one. */
  private boolean partnerAcceptedRetryOf(Order order) {
    // Shipments as JSON-B writes them, properties in alphabetical order: ..."groupKey":"order:7","messageId":12,...
    Matcher shipment = Pattern.compile("\"groupKey\":\"" + Pattern.quote(order.group()) + "\",\"messageId\":(\\d+)")
        .matcher(http().get(sampleApi("shipping")).body());
    while (shipment.find()) {
      if (Long.parseLong(shipment.group(1)) > order.shipmentId()) {
        return true;
      }
    }
    return false;
  }

  @Test
  void admin_api_answers_an_admin_and_refuses_a_caller_without_credentials_or_without_the_role() {
    URI outboxes = adminApi("outboxes");
    Http.Response asAdmin = http().send("GET", outboxes, null, "Authorization", ADMIN);
    assertThat(asAdmin.status()).as(asAdmin.body()).isEqualTo(200);
    assertThat(asAdmin.body()).contains("\"name\":\"orders\"", "\"name\":\"audit\"", "\"name\":\"shipping\"");

    Http.Response anonymous = http().get(outboxes);
    assertThat(anonymous.status()).as(anonymous.body()).isEqualTo(401);
    assertThat(anonymous.header("WWW-Authenticate")).startsWith("Basic");

    Http.Response wrongPassword = http().send("GET", outboxes, null, "Authorization", Http.basic("admin", "guess"));
    assertThat(wrongPassword.status()).isEqualTo(401);

    Http.Response asViewer = http().send("GET", outboxes, null, "Authorization", VIEWER);
    assertThat(asViewer.status()).as(asViewer.body()).isEqualTo(403);
    assertThat(asViewer.body()).contains("outbox-admin");

    Http.Response partitions = http().send("GET", adminApi("outboxes/orders/partitions"), null, "Authorization", ADMIN);
    assertThat(partitions.status()).as(partitions.body()).isEqualTo(200);
    assertThat(partitions.body()).contains("\"partition\":3");
    Http.Response unknown = http().send("GET", adminApi("outboxes/ordres/partitions"), null, "Authorization", ADMIN);
    assertThat(unknown.status()).as(unknown.body()).isEqualTo(404);
    assertThat(unknown.body()).contains("'ordres'", "[audit, orders, shipping]");

    // The console's files hold no data: served to anyone, with a policy that loads nothing from elsewhere.
    Http.Response console = http().get(URI.create(base.toString()).resolve("outbox-admin/"));
    assertThat(console.status()).isEqualTo(200);
    assertThat(console.body()).contains("<title>Outboxer console</title>");
    assertThat(console.header("Content-Security-Policy")).contains("default-src 'none'");
  }

  @Test
  void a_dead_letter_retried_through_the_admin_api_by_an_admin_is_relayed() {
    Order order;
    shippingOutage(true);
    try {
      order = placeOrder("api-retry");
      eventually(Duration.ofSeconds(40)).until(() -> deadOfGroup(order).contains("\"id\":" + order.shipmentId() + ","));
    } finally {
      shippingOutage(false);
    }
    URI retry = adminApi("outboxes/shipping/messages/" + order.shipmentId() + "/retry");
    Http.Response withoutHeader = http().send("POST", retry, null, "Authorization", ADMIN);
    assertThat(withoutHeader.status()).as("a change without X-Outbox-Admin (cross-site)").isEqualTo(403);
    Http.Response asViewer = http().send("POST", retry, null, "Authorization", VIEWER, "X-Outbox-Admin", "1");
    assertThat(asViewer.status()).isEqualTo(403);
    assertThat(deadOfGroup(order)).contains("\"id\":" + order.shipmentId() + ",");

    Http.Response retried = http().send("POST", retry, null, "Authorization", ADMIN, "X-Outbox-Admin", "1");
    assertThat(retried.status()).as(retried.body()).isEqualTo(200);
    assertThat(retried.body()).contains("\"action\":\"retry\"", "\"changed\":1");
    eventually(DELIVERY).until(() -> partnerAcceptedRetryOf(order));
    assertThat(deadOfGroup(order)).contains("\"messages\":[]");
  }

  @Test
  void readiness_reports_outbox_started_and_liveness_outbox_workers_both_up() {
    Http.Response ready = http().get(http().root().resolve("health/ready"));
    assertThat(ready.status()).as(ready.body()).isEqualTo(200);
    assertThat(checkStatus(ready.body(), "outbox-started")).as(ready.body()).isEqualTo("UP");
    assertThat(ready.body()).contains("\"shipping\":\"started, 2 partition worker(s) on this node\"");

    Http.Response live = http().get(http().root().resolve("health/live"));
    assertThat(live.status()).as(live.body()).isEqualTo(200);
    assertThat(checkStatus(live.body(), "outbox-workers")).as(live.body()).isEqualTo("UP");
    assertThat(live.body()).doesNotContain("outbox-started");
  }

  /** The status of the named check in a MicroProfile Health answer, or null if it is not there. */
  static String checkStatus(String health, String check) {
    Matcher object = Pattern.compile("\\{(?:[^{}]|\\{[^{}]*\\})*\"name\"\\s*:\\s*\"" + Pattern.quote(check)
        + "\"(?:[^{}]|\\{[^{}]*\\})*\\}").matcher(health);
    if (!object.find()) {
      return null;
    }
    String withoutData = object.group().replaceAll("\\{[^{}]*\\}", "");
    Matcher status = Pattern.compile("\"status\"\\s*:\\s*\"(\\w+)\"").matcher(withoutData.substring(1));
    return status.find() ? status.group(1) : null;
  }

  @Test
  void operator_signs_in_on_the_console_sees_a_blocked_group_and_retries_its_dead_letter_which_is_relayed()
      throws Exception {
    try (ConsoleBrowser browser = ConsoleBrowser.start()) {
      signIn(browser, "shipping");
      assertThat(browser.find("#who").getText()).isEqualTo("Signed in as admin");

      Order first;
      Order second;
      shippingOutage(true);
      try {
        first = placeOrder("console");
        String blocked = "#blocked tbody tr[data-id='" + first.shipmentId() + "']";
        browser.await(Duration.ofSeconds(20), "blocked group of message " + first.shipmentId(), d -> browser.present(blocked));
        assertThat(browser.find(blocked).getText()).contains(first.group(), "simulated outage");

        String dead = "#dead-letters tbody tr[data-id='" + first.shipmentId() + "']";
        browser.await(Duration.ofSeconds(40), "dead letter " + first.shipmentId(), d -> browser.present(dead));
        assertThat(browser.present(blocked)).as("a dead message blocks its group no more").isFalse();
        assertThat(browser.find(dead).getText()).contains(first.group(), "ShipmentRequested", "refused, attempt 3");

        // A second order while the partner is still down: the screenshot shows a blocked group and a dead letter.
        second = placeOrder("console");
        browser.await(Duration.ofSeconds(20), "blocked group of message " + second.shipmentId(),
            d -> browser.present("#blocked tbody tr[data-id='" + second.shipmentId() + "']"));
        browser.screenshot(Path.of("target", "console.png"));
      } finally {
        shippingOutage(false);
      }

      String dead = "#dead-letters tbody tr[data-id='" + first.shipmentId() + "']";
      browser.find(dead + " button.retry").click();
      browser.await(Duration.ofSeconds(10), "the confirmation", d -> browser.visible("#confirm"));
      assertThat(browser.find("#confirm-text").getText()).contains("Retry dead message " + first.shipmentId());
      browser.find("#confirm-yes").click();
      browser.await(Duration.ofSeconds(20), "the retry's answer",
          d -> browser.find("#message").getText().equals("Retried 1 message(s)."));
      browser.await(Duration.ofSeconds(20), "dead letter " + first.shipmentId() + " gone", d -> !browser.present(dead));

      eventually(DELIVERY).until(() -> partnerAcceptedRetryOf(first));
      eventually(DELIVERY).until(() -> http().get(sampleApi("shipping")).body().contains("\"messageId\":" + second.shipmentId() + ","));
    }
  }

  @Test
  void a_wrong_password_on_the_console_says_so_and_never_shows_signed_in() {
    try (ConsoleBrowser browser = ConsoleBrowser.start()) {
      browser.open(URI.create(base.toString()).resolve("outbox-admin/#shipping").toString());
      browser.await(Duration.ofSeconds(20), "the sign-in form", d -> browser.visible("#login"));
      browser.find("#user").sendKeys("admin");
      browser.find("#password").sendKeys(PASSWORD + "-wrong");
      browser.find("#sign-in").click();

      browser.await(Duration.ofSeconds(20), "the refusal", d -> browser.find("#message").getText()
          .equals("Wrong user or password."));
      assertThat(browser.visible("#login")).as("the sign-in form stays").isTrue();
      assertThat(browser.visible("#outbox")).isFalse();
      assertThat(browser.find("#who").getText()).as("no 'Signed in as' without a session").isEmpty();
    }
  }

  /** Opens the console on the outbox's page and signs in as {@code admin}. */
  private void signIn(ConsoleBrowser browser, String outbox) {
    browser.open(URI.create(base.toString()).resolve("outbox-admin/#" + outbox).toString());
    browser.await(Duration.ofSeconds(20), "the sign-in form", d -> browser.visible("#login"));
    browser.find("#user").sendKeys("admin");
    browser.find("#password").sendKeys(PASSWORD);
    browser.find("#sign-in").click();
    browser.await(Duration.ofSeconds(20), "the " + outbox + " outbox after signing in",
        d -> browser.visible("#outbox") && browser.find("#outbox-name").getText().equals("Outbox " + outbox));
  }

  @Test
  void console_shows_the_counts_lag_and_partitions_that_the_admin_api_reports() throws Exception {
    Order order = placeOrder("panels");
    eventually(DELIVERY).until(() -> http().get(sampleApi("shipping")).body()
        .contains("\"messageId\":" + order.shipmentId() + ","));
    try (ConsoleBrowser browser = ConsoleBrowser.start()) {
      signIn(browser, "orders");
      for (String outbox : List.of("orders", "shipping")) {
        if (!outbox.equals("orders")) {
          browser.find("#outboxes a[href='#" + outbox + "']").click();
          browser.await(Duration.ofSeconds(20), "the " + outbox + " outbox",
              d -> browser.find("#outbox-name").getText().equals("Outbox " + outbox));
        }
        // The page refreshes every 5 s and the API answers now: they agree once both saw the same state. Fencing
        // tokens are the exception: every idle poll claims the partitions and moves them on, so the page, fetched up
        // to 5 s ago, may never show the API's latest; it must show one the API reported within the last 7 s.
        Map<String, List<long[]>> tokensSeen = new LinkedHashMap<>();
        eventually(Duration.ofSeconds(30)).ignoreException(StaleElementReferenceException.class).untilAsserted(() -> {
          Map<String, String> counts = jsonObjects(adminGet("outboxes")).stream()
              .filter(o -> o.get("name").equals(outbox)).findFirst().orElseThrow();
          assertThat(List.of(browser.find("#pending").getText(), browser.find("#retrying").getText(),
                  browser.find("#dead").getText(), browser.find("#lag").getText()))
              .as("pending, retrying, dead and lag of " + outbox + " on the page, against the API's " + counts)
              .containsExactly(counts.get("pending"), counts.get("retrying"), counts.get("dead"),
                  consoleDuration(Long.parseLong(counts.get("lagMillis"))));

          long now = System.nanoTime();
          List<List<String>> expected = new ArrayList<>();
          for (Map<String, String> p : jsonObjects(adminGet("outboxes/" + outbox + "/partitions"))) {
            String latest = String.valueOf(p.get("fencingToken"));
            if (!latest.matches("\\d+")) {
              expected.add(List.of(p.get("partition"), p.get("owner") == null ? "never claimed" : p.get("owner"),
                  latest, p.get("lastRun") == null ? "never" : "a time", p.get("pending"), p.get("retrying")));
              continue;
            }
            List<long[]> seen = tokensSeen.computeIfAbsent(outbox + "/" + p.get("partition"), k -> new ArrayList<>());
            seen.add(new long[] {now, Long.parseLong(latest)});
            long windowStart = now - Duration.ofSeconds(7).toNanos();
            boolean windowCovered = seen.get(0)[0] <= windowStart;
            long lowest = seen.stream().filter(sample -> sample[0] >= windowStart).mapToLong(sample -> sample[1])
                .min().orElseThrow();
            // A token range instead of the token: "lowest..latest" (latest = the API's now); the earliest sample must
            // be at least 7 s old, or the page's older token could fall below a range that starts too late.
            String tokens = (windowCovered ? lowest : "(sampling)") + ".." + p.get("fencingToken");
            expected.add(List.of(p.get("partition"), p.get("owner") == null ? "never claimed" : p.get("owner"),
                tokens, p.get("lastRun") == null ? "never" : "a time", p.get("pending"), p.get("retrying")));
          }
          List<List<String>> shown = new ArrayList<>();
          List<List<String>> rows = browser.rows("#partitions tbody tr[data-partition]");
          for (int i = 0; i < rows.size(); i++) {
            List<String> cells = rows.get(i);
            // The seventh column names a prepared transaction holding the partition: none here ("–").
            assertThat(cells).hasSize(7);
            assertThat(cells.get(6)).isEqualTo("–");
            // The shown token, as the range of the API's row it falls in (or the token itself if it falls in none).
            String tokens = cells.get(2);
            if (i < expected.size() && expected.get(i).get(2).matches("\\d+\\.\\.\\d+")
                && tokens.matches("\\d+")) {
              String[] range = expected.get(i).get(2).split("\\.\\.");
              long token = Long.parseLong(tokens);
              if (Long.parseLong(range[0]) <= token && token <= Long.parseLong(range[1])) {
                tokens = expected.get(i).get(2);
              }
            }
            shown.add(List.of(cells.get(0), cells.get(1), tokens, cells.get(3).equals("–") ? "never" : "a time",
                cells.get(4), cells.get(5)));
          }
          assertThat(shown).as("partitions of " + outbox + ": partition, owner, fencing token (within the API's"
              + " tokens of the last 7 s), last run, pending, retrying").isNotEmpty().containsExactlyElementsOf(expected);
        });
      }
    }
  }

  @Test
  void operator_on_a_phone_selects_two_dead_letters_and_discards_them_after_confirming_and_the_api_agrees()
      throws Exception {
    try (ConsoleBrowser browser = ConsoleBrowser.start()) {
      signIn(browser, "shipping");
      List<Order> orders;
      shippingOutage(true);
      try {
        orders = List.of(placeOrder("discard"), placeOrder("discard"));
        for (Order order : orders) {
          browser.await(Duration.ofSeconds(40), "dead letter " + order.shipmentId(),
              d -> browser.present("#dead-letters tbody tr[data-id='" + order.shipmentId() + "']"));
        }
      } finally {
        shippingOutage(false);
      }

      // A phone held upright: the page must fit its width (no sideways scrolling) and keep its panels.
      browser.resize(390, 844);
      browser.await(Duration.ofSeconds(10), "the phone layout (tables as cards)",
          d -> !browser.visible("#dead-letters thead"));
      assertThat(((Number) browser.evaluate("window.innerWidth")).intValue()).as("viewport width").isLessThanOrEqualTo(400);
      assertThat(((Number) browser.evaluate("document.documentElement.scrollWidth")).intValue())
          .as("the page's width against the viewport's: no horizontal overflow")
          .isLessThanOrEqualTo(((Number) browser.evaluate("document.documentElement.clientWidth")).intValue());
      for (String panel : List.of("#outbox-name", "#pending", "#dead", "#lag", "#partitions", "#blocked", "#dead-letters",
          "#discard-selected")) {
        assertThat(browser.visible(panel)).as(panel + " visible on a phone").isTrue();
      }
      browser.screenshot(Path.of("target", "console-phone.png"));

      for (Order order : orders) {
        browser.click("#dead-letters tbody tr[data-id='" + order.shipmentId() + "'] input.select");
      }
      browser.await(Duration.ofSeconds(10), "both selected", d -> browser.find("#discard-selected").getText()
          .equals("Discard selected (2)"));
      browser.click("#discard-selected");
      browser.await(Duration.ofSeconds(10), "the confirmation", d -> browser.visible("#confirm"));
      assertThat(browser.find("#confirm-text").getText()).startsWith("Discard 2 message(s)?");
      browser.find("#confirm-yes").click();
      browser.await(Duration.ofSeconds(20), "the discard's answer",
          d -> browser.find("#message").getText().equals("Discarded 2 message(s)."));
      for (Order order : orders) {
        browser.await(Duration.ofSeconds(20), "dead letter " + order.shipmentId() + " gone",
            d -> !browser.present("#dead-letters tbody tr[data-id='" + order.shipmentId() + "']"));
        assertThat(deadOfGroup(order)).contains("\"messages\":[]");
      }
      String accepted = http().get(sampleApi("shipping")).body();
      for (Order order : orders) {
        assertThat(accepted).as("a discarded message is never relayed").doesNotContain("\"groupKey\":\"" + order.group() + "\"");
      }
    }
  }

  @Test
  void demo_page_links_the_console_and_the_health_endpoints_and_each_link_answers() {
    URI page = URI.create(base.toString()).resolve("index.html");
    Http.Response demo = http().get(page);
    assertThat(demo.status()).as(demo.body()).isEqualTo(200);
    List<String> links = new ArrayList<>();
    Matcher href = Pattern.compile("href=\"([^\"]+)\"").matcher(demo.body());
    while (href.find()) {
      links.add(href.group(1));
    }
    assertThat(links).contains("outbox-admin/", "outbox-admin/api/outboxes", "/health", "/health/ready", "/health/live");

    Http.Response console = http().get(page.resolve("outbox-admin/"));
    assertThat(console.status()).isEqualTo(200);
    assertThat(console.body()).contains("<title>Outboxer console</title>");
    URI api = page.resolve("outbox-admin/api/outboxes");
    assertThat(http().get(api).status()).as("the API without credentials").isEqualTo(401);
    Http.Response asAdmin = http().send("GET", api, null, "Authorization", ADMIN);
    assertThat(asAdmin.status()).isEqualTo(200);
    assertThat(asAdmin.body()).contains("\"name\":\"shipping\"");
    for (String health : List.of("/health", "/health/ready", "/health/live")) {
      Http.Response answer = http().get(page.resolve(health));
      assertThat(answer.status()).as(health + ": " + answer.body()).isEqualTo(200);
      assertThat(answer.body()).as(health).contains(health.endsWith("live") ? "outbox-workers" : "outbox-started");
    }
  }

  private String adminGet(String path) {
    Http.Response answer = http().send("GET", adminApi(path), null, "Authorization", ADMIN);
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    return answer.body();
  }

  /**
   * The flat objects of a JSON answer (an array of objects without nested ones, as the admin API's
   * counts and partitions are), each as its fields' values: strings unquoted, null as null, numbers
   * as written.
   */
  static List<Map<String, String>> jsonObjects(String json) {
    List<Map<String, String>> objects = new ArrayList<>();
    Matcher object = Pattern.compile("\\{[^{}]*\\}").matcher(json);
    Pattern field = Pattern.compile("\"(\\w+)\"\\s*:\\s*(\"((?:[^\"\\\\]|\\\\.)*)\"|[^,}\\s]+)");
    while (object.find()) {
      Map<String, String> values = new LinkedHashMap<>();
      Matcher pair = field.matcher(object.group());
      while (pair.find()) {
        values.put(pair.group(1), pair.group(3) != null ? pair.group(3) : pair.group(2).equals("null") ? null : pair.group(2));
      }
      objects.add(values);
    }
    return objects;
  }

  /** A duration as console.js shows it: 42s, 3m 05s, 2h 07m. */
  static String consoleDuration(long millis) {
    long seconds = millis / 1000;
    if (seconds < 60) {
      return seconds + "s";
    }
    long minutes = seconds / 60;
    if (minutes < 60) {
      return minutes + "m " + String.format("%02d", seconds % 60) + "s";
    }
    return minutes / 60 + "h " + String.format("%02d", minutes % 60) + "m";
  }
}
