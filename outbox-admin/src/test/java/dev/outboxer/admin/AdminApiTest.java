package dev.outboxer.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.OutboxAdmin;
import dev.outboxer.Outbox;
import dev.outboxer.testing.LogCapture;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.PreparedBranch;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import jakarta.json.Json;
import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every endpoint of the admin API over real HTTP (Jersey on the JDK's server) against the real
 * core on PostgreSQL: its answer, its 401 without credentials, its 403 without the role, and for a
 * changing call its 403 without the cross-site header, with nothing changed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminApiTest {

  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String NODE = "admin-api-node";

  private OutboxTestContainer container;
  private AdminServer server;
  private Outbox outbox;
  private OutboxAdmin admin;
  private RecordingRelay relay;
  private final Set<String> failingGroups = ConcurrentHashMap.newKeySet();

  @BeforeAll
  void start() {
    container = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
        .config("outbox.node-id", NODE)
        .config("outbox.orders.relay", "recording")
        .config("outbox.orders.partitions", "2")
        .config("outbox.orders.max-attempts", "1")
        .config("outbox.orders.dead-retention", "30d")
        .config("outbox.orders.poll-interval", "100ms")
        .config("outbox.orders.max-poll-interval", "200ms")
        .config("outbox.audit.relay", "recording")
        .config("outbox.audit.backoff.min", "1m")
        .config("outbox.audit.backoff.max", "1m")
        .config("outbox.audit.poll-interval", "100ms")
        .config("outbox.audit.max-poll-interval", "200ms")
        .beans(RecordingRelay.class)
        .start();
    server = new AdminServer(container);
    outbox = container.select(Outbox.class);
    admin = container.select(OutboxAdmin.class);
    relay = container.select(RecordingRelay.class);
    relay.failWhen(record -> failingGroups.contains(record.groupKey()));
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

  @BeforeEach
  void clean() throws Exception {
    failingGroups.clear();
    try (java.sql.Connection connection = TestDatabase.POSTGRESQL.connect();
        java.sql.Statement statement = connection.createStatement()) {
      statement.executeUpdate("DELETE FROM outbox_message");
    }
  }

  // ---- security, for every endpoint ----

  static Stream<Arguments> endpoints() {
    return Stream.of(
        Arguments.of("GET", "api/outboxes", null),
        Arguments.of("GET", "api/outboxes/orders", null),
        Arguments.of("GET", "api/outboxes/orders/partitions", null),
        Arguments.of("GET", "api/outboxes/orders/blocked-groups", null),
        Arguments.of("GET", "api/outboxes/orders/dead", null),
        Arguments.of("POST", "api/outboxes/orders/messages/1/retry", ""),
        Arguments.of("DELETE", "api/outboxes/orders/messages/1", null),
        Arguments.of("POST", "api/outboxes/orders/retry", "{\"ids\":[1]}"),
        Arguments.of("POST", "api/outboxes/orders/discard", "{\"ids\":[1]}"));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("endpoints")
  void without_credentials_every_endpoint_answers_401_with_a_basic_challenge(String method, String path, String body) {
    HttpResponse<String> response = server.send(withCsrf(call(method, path, body, null)));

    assertThat(response.statusCode()).isEqualTo(401);
    assertThat(response.headers().firstValue("WWW-Authenticate")).hasValue("Basic realm=\"outbox-admin\"");
    assertThat(json(response).getString("error")).contains("authenticated caller in the role 'outbox-admin'");
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("endpoints")
  void a_caller_without_the_role_gets_403_from_every_endpoint(String method, String path, String body) {
    HttpResponse<String> response = server.send(withCsrf(call(method, path, body, "viewer")));

    assertThat(response.statusCode()).isEqualTo(403);
    assertThat(json(response).getString("error")).isEqualTo(
        "'viewer' is not in the role 'outbox-admin' that the outbox admin API needs");
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("endpoints")
  void the_consoles_script_gets_its_401_with_a_challenge_no_browser_answers_with_its_own_dialog(String method,
      String path, String body) {
    HttpResponse<String> response = server.send(withCsrf(call(method, path, body, null)
        .header("X-Requested-With", "XMLHttpRequest")));

    assertThat(response.statusCode()).isEqualTo(401);
    assertThat(response.headers().firstValue("WWW-Authenticate")).hasValue("OutboxConsole realm=\"outbox-admin\"");
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("endpoints")
  void wrong_password_is_no_credential_and_gets_401(String method, String path, String body) {
    HttpRequest.Builder request = call(method, path, body, null)
        .header("Authorization", "Basic " + java.util.Base64.getEncoder().encodeToString("operator:guess".getBytes()));
    assertThat(server.send(withCsrf(request)).statusCode()).isEqualTo(401);
  }

  @Test
  void a_changing_call_without_the_cross_site_header_gets_403_and_changes_nothing() throws Exception {
    failingGroups.add("g");
    List<Long> dead = publishDead("orders", "g", "g", "g");
    HttpResponse<String> one = server.send(call("POST", "api/outboxes/orders/messages/" + dead.get(0) + "/retry", "",
        "operator"));
    HttpResponse<String> delete = server.send(call("DELETE", "api/outboxes/orders/messages/" + dead.get(1), null,
        "operator"));
    HttpResponse<String> bulk = server.send(call("POST", "api/outboxes/orders/discard", "{\"group\":\"g\"}",
        "operator").header("X-Outbox-Admin", "yes please"));

    for (HttpResponse<String> response : List.of(one, delete, bulk)) {
      assertThat(response.statusCode()).isEqualTo(403);
      assertThat(json(response).getString("error")).startsWith("A call that changes an outbox needs the header"
          + " X-Outbox-Admin: 1");
    }
    assertThat(admin.counts("orders").dead()).isEqualTo(3);
  }

  // ---- answers ----

  @Test
  void outboxes_lists_every_outbox_with_counts_and_lag() throws Exception {
    failingGroups.add("stuck");
    container.inTransaction(() -> outbox.publish("audit", new Ping("stuck", 1)));
    awaitBlocked("audit", 1);

    JsonArray outboxes = jsonArray(server.send(call("GET", "api/outboxes", null, "operator")));

    assertThat(outboxes).hasSize(2);
    assertThat(outboxes.getJsonObject(0).getString("name")).isEqualTo("audit");
    assertThat(outboxes.getJsonObject(0).getInt("pending")).isEqualTo(1);
    assertThat(outboxes.getJsonObject(0).getInt("retrying")).isEqualTo(1);
    assertThat(outboxes.getJsonObject(0).getInt("dead")).isZero();
    assertThat(outboxes.getJsonObject(0).getJsonNumber("lagMillis").longValue()).isPositive();
    assertThat(outboxes.getJsonObject(1).getString("name")).isEqualTo("orders");
    assertThat(outboxes.getJsonObject(1).getInt("pending")).isZero();
  }

  @Test
  void one_outbox_answers_its_counts_and_an_unknown_outbox_404_naming_the_configured_ones() throws Exception {
    failingGroups.add("a");
    publishDead("orders", "a", "a");

    JsonObject orders = json(server.send(call("GET", "api/outboxes/orders", null, "operator")));
    HttpResponse<String> unknown = server.send(call("GET", "api/outboxes/ordres", null, "operator"));

    assertThat(orders.getString("name")).isEqualTo("orders");
    assertThat(orders.getInt("dead")).isEqualTo(2);
    assertThat(orders.getInt("pending")).isZero();
    assertThat(orders.getJsonNumber("lagMillis").longValue()).isZero();
    assertThat(orders.getJsonNumber("deadRetentionMillis").longValue()).as("dead-retention=30d")
        .isEqualTo(java.time.Duration.ofDays(30).toMillis());
    assertThat(json(server.send(call("GET", "api/outboxes/audit", null, "operator"))).isNull("deadRetentionMillis"))
        .as("no dead-retention: null").isTrue();
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(json(unknown).getString("error")).contains("'ordres'").contains("[audit, orders]");
  }

  @Test
  void partitions_answers_each_partition_with_owner_node_fencing_token_and_last_run() throws Exception {
    container.inTransaction(() -> {
      for (int group = 0; group < 20; group++) {
        outbox.publish("orders", new Ping("g" + group, 1));
      }
    });
    Awaitility.await().atMost(WAIT).until(() -> admin.partitions("orders").stream()
        .allMatch(p -> NODE.equals(p.owner()) && p.pending() == 0));

    JsonArray partitions = jsonArray(server.send(call("GET", "api/outboxes/orders/partitions", null, "operator")));

    assertThat(partitions).hasSize(2);
    for (int i = 0; i < 2; i++) {
      JsonObject partition = partitions.getJsonObject(i);
      assertThat(partition.getInt("partition")).isEqualTo(i);
      assertThat(partition.getString("owner")).isEqualTo(NODE);
      assertThat(partition.getJsonNumber("fencingToken").longValue()).isPositive();
      assertThat(java.time.Instant.parse(partition.getString("lastRun"))).isBefore(java.time.Instant.now().plusSeconds(1));
      assertThat(partition.getInt("pending")).isZero();
    }
  }

  @Test
  void partitions_name_the_prepared_transaction_that_holds_a_partition() throws Exception {
    Awaitility.await().atMost(WAIT).until(() -> admin.partitions("orders").size() == 2);
    try (PreparedBranch branch = PreparedBranch.holdingPartition(TestDatabase.POSTGRESQL, "orders", 1)) {
      JsonArray partitions = jsonArray(server.send(call("GET", "api/outboxes/orders/partitions", null, "operator")));

      assertThat(partitions.getJsonObject(0).isNull("preparedBy")).as(partitions.toString()).isTrue();
      JsonObject held = partitions.getJsonObject(1).getJsonObject("preparedBy");
      assertThat(held).as(partitions.toString()).isNotNull();
      assertThat(held.getString("gid")).isEqualTo(branch.gid());
      assertThat(java.time.Instant.parse(held.getString("preparedAt")))
          .isBetween(java.time.Instant.now().minusSeconds(30), java.time.Instant.now().plusSeconds(1));
      assertThat(held.getString("owner")).isEqualTo(TestDatabase.POSTGRESQL.user());
      assertThat(held.getString("database")).isEqualTo(branch.databaseName());
    }
  }

  @Test
  void blocked_groups_answers_key_message_attempts_next_attempt_and_last_error() throws Exception {
    failingGroups.add("customer-7");
    long id = container.inTransaction(() -> outbox.publish("audit", new Ping("customer-7", 1)));
    container.inTransaction(() -> outbox.publish("audit", new Ping("customer-7", 2)));
    awaitBlocked("audit", 1);

    JsonArray blocked = jsonArray(server.send(call("GET", "api/outboxes/audit/blocked-groups?limit=10", null,
        "operator")));

    assertThat(blocked).hasSize(1);
    JsonObject group = blocked.getJsonObject(0);
    assertThat(group.getString("groupKey")).isEqualTo("customer-7");
    assertThat(group.getJsonNumber("messageId").longValue()).isEqualTo(id);
    assertThat(group.getInt("attempts")).isEqualTo(1);
    assertThat(java.time.Instant.parse(group.getString("nextAttempt"))).isAfter(java.time.Instant.now());
    assertThat(group.getString("lastError")).contains("induced failure of message " + id);
    assertThat(server.send(call("GET", "api/outboxes/audit/blocked-groups?limit=0", null, "operator")).statusCode())
        .isEqualTo(400);
  }

  @Test
  void dead_answers_pages_with_the_next_cursor_and_filters_by_group() throws Exception {
    failingGroups.addAll(List.of("a", "b"));
    List<Long> ids = publishDead("orders", "a", "b", "a", "a");

    JsonObject first = json(server.send(call("GET", "api/outboxes/orders/dead?group=a&limit=2", null, "operator")));
    long next = first.getJsonNumber("nextAfter").longValue();
    JsonObject second = json(server.send(call("GET", "api/outboxes/orders/dead?group=a&limit=2&after=" + next, null,
        "operator")));
    JsonObject all = json(server.send(call("GET", "api/outboxes/orders/dead", null, "operator")));

    assertThat(ids(first)).containsExactly(ids.get(0), ids.get(2));
    assertThat(next).isEqualTo(ids.get(2));
    assertThat(ids(second)).containsExactly(ids.get(3));
    assertThat(second.get("nextAfter")).isEqualTo(JsonValue.NULL);
    assertThat(ids(all)).containsExactlyElementsOf(ids);
    JsonObject message = first.getJsonArray("messages").getJsonObject(0);
    assertThat(message.getString("groupKey")).isEqualTo("a");
    assertThat(message.getString("type")).isNotBlank();
    assertThat(message.getInt("attempts")).isEqualTo(1);
    assertThat(message.getString("lastError")).contains("induced failure");
    assertThat(message.getString("createdAt")).isNotBlank();
    assertThat(message.getString("lastAttemptAt")).isNotBlank();
    assertThat(server.send(call("GET", "api/outboxes/orders/dead?limit=501", null, "operator")).statusCode())
        .isEqualTo(400);
  }

  @Test
  void a_message_dead_of_a_permanent_failure_says_so_in_the_dead_list_also_with_infinite_attempts() throws Exception {
    // outbox.audit keeps max-attempts=infinity: only a permanent failure can make its message dead.
    relay.failPermanentlyWhen(record -> "rejected".equals(record.groupKey()));
    List<Long> ids = publishDead("audit", "rejected");

    JsonObject page = json(server.send(call("GET", "api/outboxes/audit/dead", null, "operator")));

    assertThat(ids(page)).containsExactlyElementsOf(ids);
    JsonObject message = page.getJsonArray("messages").getJsonObject(0);
    assertThat(message.getInt("attempts")).isEqualTo(1);
    assertThat(message.getString("lastError")).startsWith("permanent: the relay marked it permanent:"
        + " dev.outboxer.spi.PermanentRelayFailure: induced permanent failure of message " + ids.get(0));
  }

  @Test
  void retrying_one_dead_message_relays_it_logs_the_caller_and_a_second_retry_is_404() throws Exception {
    failingGroups.add("a");
    long id = publishDead("orders", "a").get(0);
    failingGroups.clear();
    int relayedBefore = relay.confirmed().size();

    HttpResponse<String> retried;
    try (LogCapture audit = LogCapture.of("dev.outboxer.admin.audit")) {
      retried = server.send(withCsrf(call("POST", "api/outboxes/orders/messages/" + id + "/retry", "", "operator")));
      assertThat(audit.messages(Level.INFO)).containsExactly("outbox-admin: operator asked to retry dead message " + id
          + " of outbox 'orders': 1 message(s) changed");
    }

    assertThat(retried.statusCode()).isEqualTo(200);
    assertThat(json(retried)).isEqualTo(Json.createObjectBuilder().add("action", "retry").add("changed", 1).build());
    Awaitility.await().atMost(WAIT).until(() -> relay.confirmed().size() > relayedBefore);
    assertThat(relay.confirmed().get(relayedBefore).groupKey()).isEqualTo("a");
    HttpResponse<String> again = server.send(withCsrf(call("POST", "api/outboxes/orders/messages/" + id + "/retry", "",
        "operator")));
    assertThat(again.statusCode()).isEqualTo(404);
    assertThat(json(again).getString("error")).startsWith("No message " + id + " to change");
  }

  @Test
  void discarding_one_message_removes_it_logs_the_caller_and_a_second_discard_is_404_and_logged_as_refused()
      throws Exception {
    failingGroups.add("a");
    long id = publishDead("orders", "a").get(0);

    HttpResponse<String> discarded;
    HttpResponse<String> again;
    try (LogCapture audit = LogCapture.of("dev.outboxer.admin.audit")) {
      discarded = server.send(withCsrf(call("DELETE", "api/outboxes/orders/messages/" + id, null, "operator")));
      again = server.send(withCsrf(call("DELETE", "api/outboxes/orders/messages/" + id, null, "operator")));
      assertThat(audit.messages(Level.INFO)).containsExactly(
          "outbox-admin: operator asked to discard message " + id + " of outbox 'orders': 1 message(s) changed",
          "outbox-admin: operator asked to discard message " + id + " of outbox 'orders': refused (404)");
    }

    assertThat(discarded.statusCode()).isEqualTo(200);
    assertThat(json(discarded).getInt("changed")).isEqualTo(1);
    assertThat(admin.counts("orders").dead()).isZero();
    assertThat(again.statusCode()).isEqualTo(404);
  }

  @Test
  void bulk_retry_and_discard_take_a_list_of_ids_or_a_group_and_log_each_change() throws Exception {
    failingGroups.addAll(List.of("a", "b", "c"));
    List<Long> ids = publishDead("orders", "a", "a", "b", "b", "c");
    failingGroups.clear();

    try (LogCapture audit = LogCapture.of("dev.outboxer.admin.audit")) {
      JsonObject retriedIds = json(server.send(withCsrf(call("POST", "api/outboxes/orders/retry",
          "{\"ids\":[" + ids.get(0) + "," + ids.get(1) + "]}", "operator"))));
      JsonObject retriedGroup = json(server.send(withCsrf(call("POST", "api/outboxes/orders/retry",
          "{\"group\":\"b\"}", "operator"))));
      JsonObject discardedGroup = json(server.send(withCsrf(call("POST", "api/outboxes/orders/discard",
          "{\"group\":\"c\"}", "operator"))));

      assertThat(retriedIds.getInt("changed")).isEqualTo(2);
      assertThat(retriedGroup.getInt("changed")).isEqualTo(2);
      assertThat(discardedGroup.getInt("changed")).isEqualTo(1);
      assertThat(audit.messages(Level.INFO)).containsExactly(
          "outbox-admin: operator asked to retry dead messages [" + ids.get(0) + ", " + ids.get(1)
              + "] of outbox 'orders': 2 message(s) changed",
          "outbox-admin: operator asked to retry dead messages of group 'b' of outbox 'orders': 2 message(s) changed",
          "outbox-admin: operator asked to discard dead messages of group 'c' of outbox 'orders': 1 message(s) changed");
    }
    Awaitility.await().atMost(WAIT).until(() -> admin.counts("orders").pending() == 0);
    assertThat(admin.counts("orders").dead()).isZero();

    failingGroups.add("d");
    List<Long> more = publishDead("orders", "d", "d");
    try (LogCapture audit = LogCapture.of("dev.outboxer.admin.audit")) {
      JsonObject discardedIds = json(server.send(withCsrf(call("POST", "api/outboxes/orders/discard",
          "{\"ids\":[" + more.get(0) + "," + more.get(1) + ",999999999]}", "operator"))));
      assertThat(discardedIds.getInt("changed")).isEqualTo(2);
      assertThat(audit.messages(Level.INFO)).containsExactly("outbox-admin: operator asked to discard messages ["
          + more.get(0) + ", " + more.get(1) + ", 999999999] of outbox 'orders': 2 message(s) changed");
    }
  }

  @Test
  void a_bulk_call_with_neither_ids_nor_group_or_with_both_is_400_and_never_means_everything() throws Exception {
    failingGroups.add("a");
    publishDead("orders", "a");

    for (String body : List.of("{}", "{\"ids\":[]}", "{\"ids\":[1],\"group\":\"a\"}")) {
      HttpResponse<String> response = server.send(withCsrf(call("POST", "api/outboxes/orders/retry", body, "operator")));
      assertThat(response.statusCode()).as(body).isEqualTo(400);
      assertThat(json(response).getString("error")).startsWith("Send either");
    }
    assertThat(admin.counts("orders").dead()).isEqualTo(1);
  }

  // ---- helpers ----

  private HttpRequest.Builder call(String method, String path, String body, String user) {
    HttpRequest.Builder request = server.request(path, user);
    if (body == null) {
      return request.method(method, HttpRequest.BodyPublishers.noBody());
    }
    return request.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body));
  }

  private static HttpRequest.Builder withCsrf(HttpRequest.Builder request) {
    return request.header("X-Outbox-Admin", "1");
  }

  private List<Long> publishDead(String outboxName, String... groups) throws Exception {
    long deadBefore = admin.counts(outboxName).dead();
    List<Long> ids = new ArrayList<>();
    for (String group : groups) {
      ids.add(container.inTransaction(() -> outbox.publish(outboxName, new Ping(group, ids.size()))));
    }
    Awaitility.await().atMost(WAIT).until(() -> admin.counts(outboxName).dead() == deadBefore + groups.length);
    return ids;
  }

  private void awaitBlocked(String outboxName, int groups) {
    Awaitility.await().atMost(WAIT).until(() -> admin.blockedGroups(outboxName, 10).size() == groups);
  }

  private static List<Long> ids(JsonObject page) {
    return page.getJsonArray("messages").stream().map(m -> m.asJsonObject().getJsonNumber("id").longValue()).toList();
  }

  private static JsonObject json(HttpResponse<String> response) {
    return Json.createReader(new StringReader(response.body())).readObject();
  }

  private static JsonArray jsonArray(HttpResponse<String> response) {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return Json.createReader(new StringReader(response.body())).readArray();
  }
}
