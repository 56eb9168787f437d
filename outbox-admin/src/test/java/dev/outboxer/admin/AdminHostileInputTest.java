package dev.outboxer.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.testing.LogCapture;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.RecordingRelay;
import dev.outboxer.testing.TestDatabase;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.lang.reflect.Proxy;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
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
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Hostile and malformed input to the admin API over real HTTP against the real core on
 * PostgreSQL: every refusal is a JSON problem with the right status naming what was wrong, and a
 * refused call changes nothing; in particular no input is coerced into a message id or group key
 * it did not spell.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminHostileInputTest {

  private static final Duration WAIT = Duration.ofSeconds(20);

  private OutboxTestContainer container;
  private AdminServer server;
  private Outbox outbox;
  private OutboxAdmin admin;
  private final Set<String> failingGroups = ConcurrentHashMap.newKeySet();

  @BeforeAll
  void start() {
    container = OutboxTestContainer.builder(TestDatabase.POSTGRESQL)
        .config("outbox.node-id", "admin-hostile-node")
        .config("outbox.orders.relay", "recording")
        .config("outbox.orders.partitions", "2")
        .config("outbox.orders.max-attempts", "1")
        .config("outbox.orders.poll-interval", "100ms")
        .config("outbox.orders.max-poll-interval", "200ms")
        .beans(RecordingRelay.class)
        .start();
    server = new AdminServer(container);
    outbox = container.select(Outbox.class);
    admin = container.select(OutboxAdmin.class);
    container.select(RecordingRelay.class).failWhen(record -> failingGroups.contains(record.groupKey()));
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

  // ---- 1. message ids in a body: whole numbers in the range of a long, nothing coerced ----

  /** {@code %d} is the id of a dead message: each body spells it in a way that must not reach it. */
  static Stream<Arguments> idsThatAreNoWholeLong() {
    return Stream.of(
        Arguments.of("{\"ids\":[%d.5]}", "ids[0] is %d.5"),
        Arguments.of("{\"ids\":[%d.0]}", "ids[0] is %d.0"),
        Arguments.of("{\"ids\":[%de0]}", "ids[0] is %de0"),
        Arguments.of("{\"ids\":[\"%d\"]}", "ids[0] is the string \"%d\""),
        Arguments.of("{\"ids\":[1, %d.9]}", "ids[1] is %d.9"),
        Arguments.of("{\"ids\":[1e30]}", "ids[0] is 1e30"),
        Arguments.of("{\"ids\":[9223372036854775808]}", "ids[0] is 9223372036854775808"),
        Arguments.of("{\"ids\":[-9223372036854775809]}", "ids[0] is -9223372036854775809"),
        Arguments.of("{\"ids\":[true]}", "ids[0] is true"),
        Arguments.of("{\"ids\":[null]}", "ids[0] is null"),
        Arguments.of("{\"ids\":[[%d]]}", "ids[0] is an array"),
        Arguments.of("{\"ids\":[{\"id\":%d}]}", "ids[0] is an object"),
        Arguments.of("{\"ids\":%d}", "ids is a number"),
        Arguments.of("{\"ids\":\"%d\"}", "ids is a string"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("idsThatAreNoWholeLong")
  void an_id_that_is_not_a_whole_number_in_the_range_of_a_long_is_400_naming_it_and_nothing_is_discarded(
      String body, String error) throws Exception {
    failingGroups.add("a");
    long id = publishDead("a").get(0);

    HttpResponse<String> response = change("discard", body.replace("%d", Long.toString(id)));

    assertProblem(response, 400, error.replace("%d", Long.toString(id)));
    assertThat(admin.counts("orders").dead()).isEqualTo(1);
  }

  // ---- 2. the group: a string, nothing else ----

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"{\"group\":[\"a\"]}", "{\"group\":{\"a\":1}}", "{\"group\":7}", "{\"group\":true}",
      "{\"group\":null}", "{\"group\":\"a\",\"ids\":null}", "{\"ids\":null,\"group\":\"a\"}"})
  void a_group_that_is_not_a_string_or_a_null_next_to_it_is_400_and_the_group_stays(String body) throws Exception {
    failingGroups.add("a");
    publishDead("a", "a");

    HttpResponse<String> discard = change("discard", body);
    HttpResponse<String> retry = change("retry", body);

    assertProblem(discard, 400, body.contains("\"ids\":null") ? "ids is null" : "group is ");
    assertProblem(retry, 400, body.contains("\"ids\":null") ? "ids is null" : "group is ");
    assertThat(json(discard).getString("error")).contains("must be");
    assertThat(admin.counts("orders").dead()).isEqualTo(2);
  }

  @Test
  void an_unknown_key_is_400_naming_it_instead_of_being_ignored() throws Exception {
    failingGroups.add("a");
    long id = publishDead("a").get(0);

    HttpResponse<String> response = change("discard", "{\"ids\":[" + id + "],\"grup\":\"a\"}");

    assertProblem(response, 400, "'grup'", "\"ids\"", "\"group\"");
    assertThat(admin.counts("orders").dead()).isEqualTo(1);
  }

  // ---- 3. one JSON object: no duplicate keys, nothing after it ----

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"{\"group\":\"b\",\"group\":\"a\"}", "{\"ids\":[1],\"ids\":[%d]}",
      "{\"group\":\"a\",\"\\u0067roup\":\"b\"}"})
  void a_key_given_twice_is_400_naming_it_and_nothing_is_discarded(String body) throws Exception {
    failingGroups.addAll(List.of("a", "b"));
    long id = publishDead("a", "b").get(0);

    HttpResponse<String> response = change("discard", body.replace("%d", Long.toString(id)));

    assertProblem(response, 400, "twice");
    assertThat(json(response).getString("error")).containsAnyOf("'group'", "'ids'");
    assertThat(admin.counts("orders").dead()).isEqualTo(2);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"{\"group\":\"a\"} {\"group\":\"b\"}", "{\"group\":\"a\"}x", "{\"group\":\"a\"}]",
      "{\"group\":\"a\"}}", "{\"group\":\"a\"}\"", "{\"group\":\"a\"}0"})
  void text_after_the_json_object_is_400_and_nothing_is_discarded(String body) throws Exception {
    failingGroups.add("a");
    publishDead("a");

    HttpResponse<String> response = change("discard", body);

    assertProblem(response, 400, "after");
    assertThat(admin.counts("orders").dead()).isEqualTo(1);
  }

  // ---- 4. malformed JSON and bodies that are no object ----

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"{\"group\":", "{group:\"a\"}", "{\"group\":\"a\",}", "{\"ids\":[1,]}", "{\"ids\":[1", "nul",
      "{'group':'a'}", "\uFEFF{\"group\":\"a\"}", "{\"ids\":[01]}", "{\"ids\":[NaN]}"})
  void malformed_json_is_400_with_a_problem_naming_where(String body) throws Exception {
    failingGroups.add("a");
    publishDead("a");

    HttpResponse<String> response = change("discard", body);

    assertProblem(response, 400, "not valid JSON", "line 1, column");
    assertThat(admin.counts("orders").dead()).isEqualTo(1);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"[\"a\"]", "\"a\"", "7", "null", "true"})
  void a_body_that_is_no_json_object_is_400(String body) throws Exception {
    HttpResponse<String> response = change("retry", body);

    assertProblem(response, 400, "must be a JSON object");
  }

  @ParameterizedTest(name = "[{0}]")
  @ValueSource(strings = {"", " ", "\n"})
  void an_empty_body_is_400_with_a_problem(String body) {
    assertProblem(change("discard", body), 400, "empty");
    assertProblem(server.send(withCsrf(server.request("api/outboxes/orders/discard", "operator")
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.noBody()))), 400, "empty");
  }

  // ---- 5. the caller is checked before the body is read ----

  @ParameterizedTest(name = "[{0}]")
  @ValueSource(strings = {"{\"group\":", "{\"ids\":[1.5]}", "", "[", "{\"group\":\"a\",\"group\":\"b\"}"})
  void a_bad_body_from_a_caller_who_may_not_call_is_401_or_403_not_a_body_error(String body) {
    HttpResponse<String> anonymous = server.send(withCsrf(call("POST", "api/outboxes/orders/discard", body, null)));
    HttpResponse<String> viewer = server.send(withCsrf(call("POST", "api/outboxes/orders/discard", body, "viewer")));
    HttpResponse<String> noCsrf = server.send(call("POST", "api/outboxes/orders/discard", body, "operator"));
    HttpResponse<String> wrongType = server.send(withCsrf(server.request("api/outboxes/orders/retry", null)
        .header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString(body))));

    assertProblem(anonymous, 401, "authenticated caller");
    assertProblem(viewer, 403, "'viewer' is not in the role");
    assertProblem(noCsrf, 403, "X-Outbox-Admin");
    assertProblem(wrongType, 401, "authenticated caller");
  }

  // ---- 6. path ids and paging parameters ----

  static Stream<Arguments> badPathsAndParameters() {
    return Stream.of(
        Arguments.of("POST", "api/outboxes/orders/messages/abc/retry", "id 'abc'"),
        Arguments.of("DELETE", "api/outboxes/orders/messages/abc", "id 'abc'"),
        Arguments.of("DELETE", "api/outboxes/orders/messages/1.5", "id '1.5'"),
        Arguments.of("DELETE", "api/outboxes/orders/messages/9223372036854775808", "id '9223372036854775808'"),
        Arguments.of("DELETE", "api/outboxes/orders/messages/+1", "id '+1'"),
        Arguments.of("GET", "api/outboxes/orders/dead?limit=-1", "limit=-1"),
        Arguments.of("GET", "api/outboxes/orders/dead?limit=99999999999", "limit=99999999999"),
        Arguments.of("GET", "api/outboxes/orders/dead?limit=abc", "limit=abc"),
        Arguments.of("GET", "api/outboxes/orders/dead?limit=", "limit="),
        Arguments.of("GET", "api/outboxes/orders/dead?limit=10&limit=20", "limit is given 2 times"),
        Arguments.of("GET", "api/outboxes/orders/dead?after=xyz", "after=xyz"),
        Arguments.of("GET", "api/outboxes/orders/dead?after=1.5", "after=1.5"),
        Arguments.of("GET", "api/outboxes/orders/dead?after=9223372036854775808", "after=9223372036854775808"),
        Arguments.of("GET", "api/outboxes/orders/dead?group=a&group=b", "group is given 2 times"),
        Arguments.of("GET", "api/outboxes/orders/blocked-groups?limit=-1", "limit=-1"),
        Arguments.of("GET", "api/outboxes/orders/blocked-groups?limit=huge", "limit=huge"),
        Arguments.of("GET", "api/outboxes/orders/blocked-groups?limit=99999999999", "limit=99999999999"));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("badPathsAndParameters")
  void a_bad_path_id_or_paging_parameter_is_400_naming_it(String method, String path, String error) throws Exception {
    failingGroups.add("a");
    publishDead("a");

    HttpResponse<String> response = server.send(withCsrf(call(method, path, method.equals("POST") ? "" : null,
        "operator")));

    assertProblem(response, 400, error);
    assertThat(admin.counts("orders").dead()).isEqualTo(1);
  }

  // ---- 7. group keys no message can have: refused before the database sees them ----

  @Test
  void a_group_key_with_a_nul_character_is_400_before_the_database_sees_it() throws Exception {
    HttpResponse<String> discard = change("discard", "{\"group\":\"a\\u0000b\"}");
    HttpResponse<String> retry = change("retry", "{\"group\":\"a\\u0000b\"}");
    HttpResponse<String> dead = server.send(call("GET", "api/outboxes/orders/dead?group=a%00b", null, "operator"));

    for (HttpResponse<String> response : List.of(discard, retry, dead)) {
      assertProblem(response, 400, "group", "NUL");
      assertThat(response.body()).doesNotContainIgnoringCase("ERROR:").doesNotContain("SQL");
    }
  }

  @Test
  void a_group_key_with_an_unpaired_surrogate_is_400_and_does_not_discard_the_group_it_would_be_coerced_to()
      throws Exception {
    failingGroups.add("?");
    publishDead("?", "?");

    HttpResponse<String> response = change("discard", "{\"group\":\"\\ud800\"}");

    assertProblem(response, 400, "group", "unpaired surrogate");
    assertThat(admin.counts("orders").dead()).isEqualTo(2);
  }

  @Test
  void a_body_that_is_not_utf8_is_400_and_does_not_discard_the_group_it_would_be_decoded_to() throws Exception {
    failingGroups.add("\uFFFD");
    publishDead("\uFFFD");
    byte[] body = {'{', '"', 'g', 'r', 'o', 'u', 'p', '"', ':', '"', (byte) 0xFF, '"', '}'};

    HttpResponse<String> response = server.send(withCsrf(server.request("api/outboxes/orders/discard", "operator")
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofByteArray(body))));

    assertProblem(response, 400, "UTF-8", "byte 10");
    assertThat(admin.counts("orders").dead()).isEqualTo(1);
  }

  @Test
  void a_group_key_longer_than_any_message_can_have_or_blank_is_400_naming_the_limit() {
    String tooLong = "g".repeat(256);

    assertProblem(change("discard", "{\"group\":\"" + tooLong + "\"}"), 400, "256 characters", "255");
    assertProblem(change("retry", "{\"group\":\"  \"}"), 400, "group is blank");
  }

  // ---- 8. the server's own refusals are JSON problems too ----

  @Test
  void a_wrong_content_type_is_415_naming_the_type_expected() throws Exception {
    failingGroups.add("a");
    publishDead("a");

    HttpResponse<String> plain = server.send(withCsrf(server.request("api/outboxes/orders/discard", "operator")
        .header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString("{\"group\":\"a\"}"))));
    HttpResponse<String> form = server.send(withCsrf(server.request("api/outboxes/orders/discard", "operator")
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("group=a"))));
    HttpResponse<String> latin1 = server.send(withCsrf(server.request("api/outboxes/orders/discard", "operator")
        .header("Content-Type", "application/json; charset=ISO-8859-1")
        .POST(HttpRequest.BodyPublishers.ofString("{\"group\":\"a\"}"))));

    assertProblem(plain, 415, "text/plain", "application/json");
    assertProblem(form, 415, "application/x-www-form-urlencoded", "application/json");
    assertProblem(latin1, 415, "ISO-8859-1", "UTF-8");
    assertThat(admin.counts("orders").dead()).isEqualTo(1);
  }

  @Test
  void a_json_content_type_with_utf8_charset_is_accepted() throws Exception {
    failingGroups.add("a");
    publishDead("a");

    HttpResponse<String> response = server.send(withCsrf(server.request("api/outboxes/orders/discard", "operator")
        .header("Content-Type", "application/json; charset=utf-8")
        .POST(HttpRequest.BodyPublishers.ofString("{\"group\":\"a\"}"))));

    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    assertThat(admin.counts("orders").dead()).isZero();
  }

  @Test
  void a_wrong_method_is_405_and_an_unknown_path_404_with_a_problem() {
    HttpResponse<String> put = server.send(withCsrf(call("PUT", "api/outboxes/orders/discard", "{\"ids\":[1]}",
        "operator")));
    HttpResponse<String> get = server.send(call("GET", "api/outboxes/orders/discard", null, "operator"));
    HttpResponse<String> unknown = server.send(call("GET", "api/outboxes/orders/nothing-here", null, "operator"));

    assertProblem(put, 405, "PUT", "POST");
    assertThat(put.headers().firstValue("Allow")).hasValueSatisfying(allow -> assertThat(allow).contains("POST"));
    assertProblem(get, 405, "GET", "POST");
    assertProblem(unknown, 404, "nothing-here");
  }

  @Test
  void an_unexpected_failure_is_500_with_a_problem_that_leaks_nothing_and_is_logged() {
    OutboxAdmin failing = (OutboxAdmin) Proxy.newProxyInstance(OutboxAdmin.class.getClassLoader(),
        new Class<?>[] {OutboxAdmin.class}, (proxy, method, args) -> switch (method.getName()) {
          case "hashCode" -> System.identityHashCode(proxy);
          case "equals" -> proxy == args[0];
          case "toString" -> "an OutboxAdmin whose database is gone";
          default -> throw new IllegalStateException("connection to jdbc:postgresql://db.internal:5432/secret refused");
        });
    try (AdminServer broken = new AdminServer(failing, container.select(AdminSettings.class));
        LogCapture log = LogCapture.of("dev.outboxer.admin")) {
      HttpResponse<String> response = broken.send(broken.request("api/outboxes", "operator"));

      assertProblem(response, 500, "incident");
      assertThat(response.body()).doesNotContain("secret").doesNotContain("jdbc").doesNotContain("IllegalState");
      String incident = json(response).getString("error").replaceAll("(?s).*incident ([0-9a-f-]+).*", "$1");
      assertThat(log.messages(Level.SEVERE)).anySatisfy(line -> assertThat(line).contains(incident));
    }
  }

  // ---- 9. how much one call may ask for ----

  @Test
  void more_than_10000_ids_is_413_naming_the_limit_and_nothing_is_discarded() throws Exception {
    failingGroups.add("a");
    long id = publishDead("a").get(0);
    String ids = LongStream.range(0, 10_001).map(i -> id + i).mapToObj(Long::toString)
        .collect(Collectors.joining(","));

    HttpResponse<String> response = change("discard", "{\"ids\":[" + ids + "]}");

    assertProblem(response, 413, "10001 ids", "10000");
    assertThat(admin.counts("orders").dead()).isEqualTo(1);
  }

  @Test
  void a_body_over_1_mib_is_413_naming_the_limit() throws Exception {
    failingGroups.add("a");
    long id = publishDead("a").get(0);
    String million = LongStream.range(0, 1_000_000).map(i -> id + i).mapToObj(Long::toString)
        .collect(Collectors.joining(","));
    String padded = "{\"ids\":[" + id + "]" + " ".repeat(1024 * 1024) + "}";

    HttpResponse<String> ids = change("discard", "{\"ids\":[" + million + "]}");
    HttpResponse<String> spaces = change("discard", padded);
    // Without Content-Length (chunked): the limit is found by reading, not from the header.
    HttpResponse<String> chunked = server.send(withCsrf(server.request("api/outboxes/orders/discard", "operator")
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofInputStream(
            () -> new java.io.ByteArrayInputStream(padded.getBytes(StandardCharsets.UTF_8))))));

    assertProblem(ids, 413, "1048576 bytes");
    assertProblem(spaces, 413, "1048576 bytes");
    assertProblem(chunked, 413, "more than 1048576 bytes");
    assertThat(admin.counts("orders").dead()).isEqualTo(1);
  }

  @Test
  void the_audit_line_of_10000_ids_names_the_count_and_the_first_ids_only() throws Exception {
    failingGroups.add("a");
    List<Long> dead = publishDead("a", "a");
    List<Long> asked = new ArrayList<>(dead);
    LongStream.range(0, 9_998).forEach(i -> asked.add(dead.get(1) + 1_000_000 + i));
    String body = asked.stream().map(Object::toString).collect(Collectors.joining(",", "{\"ids\":[", "]}"));

    try (LogCapture audit = LogCapture.of("dev.outboxer.admin.audit")) {
      HttpResponse<String> response = change("discard", body);

      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      assertThat(json(response).getInt("changed")).isEqualTo(2);
      assertThat(audit.messages(Level.INFO)).singleElement().satisfies(line -> {
        assertThat(line).startsWith("outbox-admin: operator asked to discard 10000 messages [" + dead.get(0) + ", "
            + dead.get(1) + ", ").contains(", ... 9990 more]").endsWith("of outbox 'orders': 2 message(s) changed");
        assertThat(line.length()).isLessThan(400);
      });
    }
  }

  @Test
  void control_characters_of_a_group_key_or_an_outbox_name_cannot_forge_audit_lines() throws Exception {
    String forged = "g\noutbox-admin: mallory asked to discard nothing";
    publishDead(forged);

    try (LogCapture audit = LogCapture.of("dev.outboxer.admin.audit")) {
      HttpResponse<String> group = change("discard", "{\"group\":\"g\\noutbox-admin: mallory asked to discard"
          + " nothing\"}");
      HttpResponse<String> outboxName = server.send(withCsrf(call("DELETE",
          "api/outboxes/x%0Aoutbox-admin:%20mallory/messages/1", null, "operator")));

      assertThat(group.statusCode()).as(group.body()).isEqualTo(200);
      assertThat(json(group).getInt("changed")).isEqualTo(1);
      assertThat(outboxName.statusCode()).isEqualTo(404);
      assertThat(audit.messages(Level.INFO)).containsExactly(
          "outbox-admin: operator asked to discard dead messages of group 'g\\u000Aoutbox-admin: mallory asked to"
              + " discard nothing' of outbox 'orders': 1 message(s) changed",
          "outbox-admin: operator asked to discard message 1 of outbox 'x\\u000Aoutbox-admin: mallory': refused"
              + " (404)");
    }
  }

  // ---- helpers ----

  private HttpResponse<String> change(String action, String body) {
    return server.send(withCsrf(call("POST", "api/outboxes/orders/" + action, body, "operator")));
  }

  private HttpRequest.Builder call(String method, String path, String body, String user) {
    HttpRequest.Builder request = server.request(path, user);
    if (body == null) {
      return request.method(method, HttpRequest.BodyPublishers.noBody());
    }
    return request.header("Content-Type", "application/json").method(method,
        HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
  }

  private static HttpRequest.Builder withCsrf(HttpRequest.Builder request) {
    return request.header("X-Outbox-Admin", "1");
  }

  private List<Long> publishDead(String... groups) throws Exception {
    failingGroups.addAll(List.of(groups));
    long deadBefore = admin.counts("orders").dead();
    List<Long> ids = new ArrayList<>();
    for (String group : groups) {
      ids.add(container.inTransaction(() -> outbox.publish("orders", new Ping(group, ids.size()))));
    }
    Awaitility.await().atMost(WAIT).until(() -> admin.counts("orders").dead() == deadBefore + groups.length);
    return ids;
  }

  private static void assertProblem(HttpResponse<String> response, int status, String... inError) {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
    assertThat(response.headers().firstValue("Content-Type")).as("Content-Type of " + response.body())
        .hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
    JsonObject problem = json(response);
    assertThat(problem.getInt("status")).isEqualTo(status);
    assertThat(problem.getString("error")).contains(inError);
  }

  private static JsonObject json(HttpResponse<String> response) {
    return Json.createReader(new StringReader(response.body())).readObject();
  }
}
