package dev.outboxer.cdi.internal.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import dev.outboxer.InvalidOutboxMessageException;
import dev.outboxer.Outbox;
import dev.outboxer.OutboxMessage;
import dev.outboxer.OutboxTransactionRequiredException;
import dev.outboxer.Outboxed;
import dev.outboxer.UnknownOutboxException;
import dev.outboxer.cdi.internal.Headered;
import dev.outboxer.cdi.internal.LogCapture;
import dev.outboxer.cdi.internal.Rows;
import dev.outboxer.cdi.internal.ScriptedRelay;
import dev.outboxer.cdi.internal.SwitchableCodec;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.testing.OutboxTestContainer;
import dev.outboxer.testing.TestDatabase;
import dev.outboxer.testing.TestOrder;
import jakarta.transaction.Status;
import jakarta.transaction.UserTransaction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.stream.Stream;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Regression tests of issue 11 ("What happens today" 1 and 8; "Deliver" 1): every input that cannot
 * be stored or delivered is refused by {@code publish} with an {@link InvalidOutboxMessageException}
 * naming the field, nothing is written, and the caller's transaction is NOT marked for rollback:
 * the caller can still commit its other work. Inputs at the limits are accepted and come back
 * unchanged.
 *
 * <p>Workers run, with a relay that fails every record it is handed (and retries only after a
 * minute): an accepted message stays in the table for inspection, and a refused one that was
 * written after all would stay there too, so "nothing written" is checked after the commit.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class PublishValidationContractTest {

  static final String OUTBOX = "orders";
  private static final AtomicInteger ORDER_IDS = new AtomicInteger();
  private static final Duration WAIT = Duration.ofSeconds(20);

  OutboxTestContainer container;
  Outbox outbox;
  private LogCapture logs;

  abstract TestDatabase database();

  @BeforeAll
  void start() {
    ScriptedRelay.reset();
    container = OutboxTestContainer.builder(database())
        .config("outbox.orders.relay", "scripted")
        .config("outbox.orders.partitions", "2")
        .config("outbox.orders.backoff.min", "1m")
        .config("outbox.orders.backoff.max", "1m")
        .config("outbox.orders.poll-interval", "100ms")
        // Beyond the brief: an outbox with a payload limit small enough to test at and over it, and
        // one whose publishers lock their group (a lock row per group key on MariaDB).
        .config("outbox.small.relay", "scripted")
        .config("outbox.small.max-payload-size", "1KB")
        .config("outbox.small.backoff.min", "1m")
        .config("outbox.small.backoff.max", "1m")
        .config("outbox.serial.relay", "scripted")
        .config("outbox.serial.serialize-writes", "true")
        .config("outbox.serial.backoff.min", "1m")
        .config("outbox.serial.backoff.max", "1m")
        // An outbox whose relay's destination has rules of its own (MessageConstraints).
        .config("outbox.strict.relay", DestinationRulesRelayProvider.NAME)
        .beans(ScriptedRelay.class, SwitchableCodec.class, DestinationRulesRelayProvider.class, PausingInterceptor.class)
        .start();
    outbox = container.select(Outbox.class);
  }

  @AfterAll
  void stop() {
    SwitchableCodec.mode(SwitchableCodec.Mode.JSON);
    ScriptedRelay.reset();
    if (container != null) {
      container.close();
    }
  }

  @BeforeEach
  void clean() {
    PausingInterceptor.disarm();
    logs = LogCapture.start();
    SwitchableCodec.mode(SwitchableCodec.Mode.JSON);
    ScriptedRelay.reset();
    // Keep every accepted message in the table: fail it, retry in a minute.
    ScriptedRelay.script((batch, node) -> batch.records().forEach(
        record -> batch.fail(record, new IllegalStateException("kept for inspection"))));
    Rows.clear(database());
  }

  @AfterEach
  void quiet() {
    // Stop a worker still failing on a message today's publish wrongly accepted.
    Rows.clear(database());
    logs.close();
  }

  // ---- 1. the message itself ----

  @Test
  void publish_of_a_null_message_is_refused_naming_the_message() throws Exception {
    // No outbox to name: a null message has no @Outboxed type.
    RuntimeException refusal = refused(() -> outbox.publish(null));
    assertThat(refusal).isInstanceOf(InvalidOutboxMessageException.class).hasMessageContaining("null");
    assertThat(((InvalidOutboxMessageException) refusal).field()).isEqualTo("message");
  }

  @Test
  void publish_to_a_named_outbox_of_a_null_message_is_refused_naming_the_message() throws Exception {
    assertInvalid(refused(() -> outbox.publish(OUTBOX, null)), "message");
  }

  // ---- 2-5. group keys ----

  @Test
  void an_empty_group_key_is_refused_as_blank() throws Exception {
    assertInvalid(refused(() -> outbox.publish(OUTBOX, Headered.key(""))), "groupKey",
        "blank", "use null for an unordered message");
  }

  @Test
  void a_group_key_of_spaces_is_refused_as_blank() throws Exception {
    assertInvalid(refused(() -> outbox.publish(OUTBOX, Headered.key("  "))), "groupKey",
        "blank", "use null for an unordered message");
  }

  @Test
  void a_group_key_with_a_nul_character_is_refused_at_publish_not_at_commit() throws Exception {
    assertInvalid(refused(() -> outbox.publish(OUTBOX, Headered.key("order\u00007"))), "groupKey", "NUL");
  }

  @Test
  void a_group_key_with_an_unpaired_surrogate_is_refused_as_not_valid_unicode() throws Exception {
    assertInvalid(refused(() -> outbox.publish(OUTBOX, Headered.key("a\uD800"))), "groupKey", "not valid Unicode");
  }

  @Test
  void a_group_key_of_256_characters_is_refused_naming_the_limit_of_255() throws Exception {
    assertInvalid(refused(() -> outbox.publish(OUTBOX, Headered.key("k".repeat(256)))), "groupKey", "255 characters");
  }

  @Test
  void a_group_key_of_256_emoji_is_refused_naming_the_limit_of_255() throws Exception {
    assertInvalid(refused(() -> outbox.publish(OUTBOX, Headered.key("\uD83D\uDE00".repeat(256)))), "groupKey",
        "255 characters");
  }

  @Test
  void a_group_key_of_255_emoji_is_accepted_stored_and_relayed_unchanged() throws Exception {
    // 255 code points, 510 UTF-16 units, 1020 UTF-8 bytes: the columns count characters.
    String key = "\uD83D\uDE00".repeat(255);
    long id = container.inTransaction(() -> outbox.publish(OUTBOX, Headered.key(key)));

    assertThat(Rows.message(database(), id).get("group_key")).as("stored key").isEqualTo(key);
    await().atMost(WAIT).until(() -> ScriptedRelay.timesHanded(id) >= 1);
    assertThat(handed(id).groupKey()).as("relayed key").isEqualTo(key);
  }

  // ---- 6-7. headers ----

  @Test
  void headers_returning_null_are_refused_naming_the_headers() throws Exception {
    assertInvalid(refused(() -> outbox.publish(OUTBOX, Headered.headers(null))), "headers");
  }

  @Test
  void a_header_with_a_null_name_is_refused_naming_the_headers() throws Exception {
    Map<String, String> headers = new HashMap<>();
    headers.put(null, "v");
    assertInvalid(refused(() -> outbox.publish(OUTBOX, Headered.headers(headers))), "headers", "null");
  }

  @Test
  void a_header_with_a_null_value_is_refused_naming_the_header() throws Exception {
    Map<String, String> headers = new HashMap<>();
    headers.put("x", null);
    assertInvalid(refused(() -> outbox.publish(OUTBOX, Headered.headers(headers))), "header 'x'", "null");
  }

  @Test
  void a_header_with_an_empty_name_is_refused() throws Exception {
    InvalidOutboxMessageException refusal = assertInvalidHeader(
        refused(() -> outbox.publish(OUTBOX, Headered.headers(Map.of("", "v")))));
    assertThat(refusal.getMessage()).containsAnyOf("empty", "blank");
  }

  @Test
  void a_header_name_with_a_nul_character_is_refused() throws Exception {
    InvalidOutboxMessageException refusal = assertInvalidHeader(
        refused(() -> outbox.publish(OUTBOX, Headered.headers(Map.of("trace\u0000id", "v")))));
    assertThat(refusal.getMessage()).contains("NUL");
  }

  @Test
  void a_header_value_with_a_nul_character_is_refused_naming_the_header() throws Exception {
    assertInvalid(refused(() -> outbox.publish(OUTBOX, Headered.headers(Map.of("x", "a\u0000b")))), "header 'x'", "NUL");
  }

  @Test
  void a_header_name_that_is_not_valid_unicode_is_refused() throws Exception {
    InvalidOutboxMessageException refusal = assertInvalidHeader(
        refused(() -> outbox.publish(OUTBOX, Headered.headers(Map.of("trace\uDC00", "v")))));
    assertThat(refusal.getMessage()).contains("not valid Unicode");
  }

  @Test
  void a_header_value_that_is_not_valid_unicode_is_refused_naming_the_header() throws Exception {
    assertInvalid(refused(() -> outbox.publish(OUTBOX, Headered.headers(Map.of("x", "v\uD800")))), "header 'x'",
        "not valid Unicode");
  }

  @Test
  void a_header_name_in_the_reserved_outbox_space_is_refused() throws Exception {
    InvalidOutboxMessageException refusal = assertInvalidHeader(
        refused(() -> outbox.publish(OUTBOX, Headered.headers(Map.of("outbox-id", "7")))));
    assertThat(refusal.getMessage()).contains("outbox-", "reserved");
  }

  @Test
  void headers_of_more_than_65536_utf8_bytes_are_refused_naming_the_limit() throws Exception {
    // 3 bytes of name and 32,767 two-byte characters: 65,537 UTF-8 bytes, but only 32,770 UTF-16 units.
    Map<String, String> headers = Map.of("big", "\u00e9".repeat(32_767));
    InvalidOutboxMessageException refusal = assertInvalidHeader(
        refused(() -> outbox.publish(OUTBOX, Headered.headers(headers))));
    assertThat(refusal.getMessage()).containsPattern("65,?536").contains("bytes");
  }

  @Test
  void headers_of_exactly_65536_utf8_bytes_are_accepted_and_relayed_unchanged() throws Exception {
    // 2 bytes of name and 32,767 two-byte characters: 65,536 UTF-8 bytes, the limit itself.
    Map<String, String> headers = Map.of("bg", "\u00e9".repeat(32_767));
    assertThat("bg".getBytes(StandardCharsets.UTF_8).length
        + headers.get("bg").getBytes(StandardCharsets.UTF_8).length).isEqualTo(65_536);
    long id = container.inTransaction(() -> outbox.publish(OUTBOX, Headered.headers(headers)));

    await().atMost(WAIT).until(() -> ScriptedRelay.timesHanded(id) >= 1);
    assertThat(handed(id).headers()).isEqualTo(headers);
  }

  // ---- 8. the codec's output ----

  @Test
  void a_codec_that_returns_null_is_refused_naming_the_payload() throws Exception {
    SwitchableCodec.mode(SwitchableCodec.Mode.RETURN_NULL);
    assertInvalid(refused(() -> outbox.publish(OUTBOX, Headered.key("codec"))), "payload");
  }

  @Test
  void a_codec_that_throws_is_refused_naming_the_payload_with_the_codecs_exception_as_cause() throws Exception {
    SwitchableCodec.mode(SwitchableCodec.Mode.THROW);
    RuntimeException refusal = refused(() -> outbox.publish(OUTBOX, Headered.key("codec")));
    assertInvalid(refusal, "payload");
    assertThat(refusal.getCause()).isSameAs(SwitchableCodec.FAILURE);
  }

  @Test
  void a_message_the_codec_cannot_encode_is_refused_naming_the_payload_with_the_codecs_exception_as_cause()
      throws Exception {
    // JSON has no NaN: JSON-B refuses the message (and Yasson logs it at SEVERE, kept off the console).
    RuntimeException refusal;
    LogCapture yasson = LogCapture.of("org.eclipse.yasson");
    try {
      refusal = refused(() -> outbox.publish(OUTBOX, new NotANumber()));
    } finally {
      yasson.close();
    }
    assertInvalid(refusal, "payload");
    assertThat(refusal.getCause()).isInstanceOf(jakarta.json.bind.JsonbException.class);
  }

  /** A message JSON-B cannot encode. */
  public static final class NotANumber implements OutboxMessage {
    public double getValue() {
      return Double.NaN;
    }
  }

  // ---- issue 24, item 2: every failure of the codec is contained ----

  @Test
  void a_payload_nested_a_million_deep_is_refused_as_too_deeply_nested_and_the_transaction_publishes_another()
      throws Exception {
    SwitchableCodec.builtIn();
    RuntimeException refusal = refusedThenAnotherPublished(() -> outbox.publish(OUTBOX, Nested.deep(1_000_000)));
    assertInvalid(refusal, "payload", "nested too deeply", "StackOverflowError", Nested.class.getName());
    assertThat(refusal.getCause()).isInstanceOf(StackOverflowError.class);
  }

  @Test
  void a_payload_nested_a_million_deep_for_an_application_codec_is_refused_as_too_deeply_nested_naming_the_codec()
      throws Exception {
    // SwitchableCodec's own JSON-B, on the caller's thread.
    RuntimeException refusal = refusedThenAnotherPublished(() -> outbox.publish(OUTBOX, Nested.deep(1_000_000)));
    assertInvalid(refusal, "payload", "nested too deeply", "StackOverflowError", SwitchableCodec.class.getName());
  }

  @Test
  void a_payload_nested_500_deep_is_accepted_and_relayed_even_from_a_caller_with_little_stack_left()
      throws Exception {
    SwitchableCodec.builtIn();
    // A thread of 512 KiB: about what an application server's request thread has left under the
    // servlet, EJB and CDI interceptors of a business method.
    AtomicReference<Object> outcome = new AtomicReference<>();
    Thread caller = new Thread(null, () -> {
      try {
        outcome.set(container.inTransaction(() -> outbox.publish(OUTBOX, Nested.deep(500))));
      } catch (Throwable e) {
        outcome.set(e);
      }
    }, "little-stack", 512 * 1024);
    caller.start();
    caller.join();
    assertThat(outcome.get()).as("publish of a payload nested 500 deep").isInstanceOf(Long.class);
    long id = (Long) outcome.get();
    await().atMost(WAIT).until(() -> ScriptedRelay.timesHanded(id) >= 1);
    assertThat(new String(handed(id).payload(), StandardCharsets.UTF_8)).startsWith("{\"head\":{\"next\":{\"next\":")
        .contains("\"value\":0}");
  }

  static Stream<Arguments> codecFailures() {
    return Stream.of(
        Arguments.of("a NoClassDefFoundError", new NoClassDefFoundError("com/example/Missing"), "NoClassDefFoundError"),
        Arguments.of("an ExceptionInInitializerError", new ExceptionInInitializerError(
            new IllegalStateException("static init")), "ExceptionInInitializerError"),
        Arguments.of("a checked IOException, thrown sneakily", new java.io.IOException("disk gone"), "IOException"),
        Arguments.of("an exception whose getMessage throws", new UnreadableException(), UnreadableException.class
            .getName()));
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @MethodSource("codecFailures")
  void a_codec_failing_with_any_exception_or_linkage_error_is_refused_naming_the_payload_and_the_transaction_goes_on(
      String what, Throwable failure, String named) throws Exception {
    SwitchableCodec.throwing(failure);
    RuntimeException refusal = refusedThenAnotherPublished(() -> outbox.publish(OUTBOX, Headered.key("codec")));
    assertInvalid(refusal, "payload", named, SwitchableCodec.class.getName());
    assertThat(refusal.getCause()).isSameAs(failure);
  }

  /** An exception that cannot even say what it is. */
  static final class UnreadableException extends RuntimeException {
    @Override
    public String getMessage() {
      throw new IllegalStateException("getMessage is broken");
    }
  }

  /** A message whose payload is a linked list: an ordinary object nested as deep as the list is long. */
  public static final class Nested implements OutboxMessage {
    private final Node head;

    private Nested(Node head) {
      this.head = head;
    }

    static Nested deep(int depth) {
      Node head = null;
      for (int i = 0; i < depth; i++) {
        head = new Node(i, head);
      }
      return new Nested(head);
    }

    public Node getHead() {
      return head;
    }
  }

  /** A node of {@link Nested}'s list. */
  public static final class Node {
    private final int value;
    private final Node next;

    Node(int value, Node next) {
      this.value = value;
      this.next = next;
    }

    public int getValue() {
      return value;
    }

    public Node getNext() {
      return next;
    }
  }

  // ---- issue 24, item 3: state JSON-B cannot see is not dropped silently ----

  static Stream<Arguments> unseenState() {
    return Stream.of(
        Arguments.of("a field of the message", new Unseen(new Money("12.50", "EUR"), java.util.List.of(),
            Map.of()), "payload.body"),
        Arguments.of("an element of a list", new Unseen(null, java.util.List.of(new Visible("a"), new Money("1", "USD")),
            Map.of()), "payload.items[1]"),
        Arguments.of("a value of a map", new Unseen(null, java.util.List.of(), Map.of("fee", new Money("2", "CHF"))),
            "payload.byName.fee"),
        Arguments.of("the message itself", new HiddenMessage(42), "payload"));
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @MethodSource("unseenState")
  void state_the_json_b_codec_cannot_see_is_refused_naming_its_path_and_type_instead_of_stored_as_an_empty_object(
      String what, OutboxMessage message, String path) throws Exception {
    SwitchableCodec.builtIn();
    RuntimeException refusal = refused(() -> outbox.publish(OUTBOX, message));
    String type = message instanceof HiddenMessage ? HiddenMessage.class.getName() : Money.class.getName();
    assertInvalid(refusal, path, type, "{}", "no public getter");
  }

  @Test
  void empty_objects_json_b_writes_on_purpose_are_accepted_and_relayed_as_empty_objects() throws Exception {
    SwitchableCodec.builtIn();
    long id = container.inTransaction(() -> outbox.publish(OUTBOX, new LegitimatelyEmpty()));

    await().atMost(WAIT).until(() -> ScriptedRelay.timesHanded(id) >= 1);
    assertThat(new String(handed(id).payload(), StandardCharsets.UTF_8)).isEqualTo("{\"allNull\":{},\"emptyMap\":{},"
        + "\"ignored\":{},\"marker\":{},\"markers\":[{},{}],\"text\":\"{}\"}");
  }

  /** A message with a field, a list and a map that can hold objects whose state JSON-B cannot see. */
  public static final class Unseen implements OutboxMessage {
    private final Object body;
    private final java.util.List<Object> items;
    private final Map<String, Object> byName;

    Unseen(Object body, java.util.List<Object> items, Map<String, Object> byName) {
      this.body = body;
      this.items = items;
      this.byName = byName;
    }

    public Object getBody() {
      return body;
    }

    public java.util.List<Object> getItems() {
      return items;
    }

    public Map<String, Object> getByName() {
      return byName;
    }
  }

  /** Money with its state in private fields and no getter: JSON-B writes {}. */
  public static final class Money {
    private final java.math.BigDecimal amount;
    private final String currency;

    Money(String amount, String currency) {
      this.amount = new java.math.BigDecimal(amount);
      this.currency = currency;
    }

    @Override
    public String toString() {
      return amount + " " + currency;
    }
  }

  /** A value JSON-B sees. */
  public static final class Visible {
    private final String name;

    Visible(String name) {
      this.name = name;
    }

    public String getName() {
      return name;
    }
  }

  /** A message whose own state JSON-B cannot see: the whole payload would be {}. */
  public static final class HiddenMessage implements OutboxMessage {
    private final long orderId;

    HiddenMessage(long orderId) {
      this.orderId = orderId;
    }
  }

  /** Empty objects that are what the application meant. */
  public static final class LegitimatelyEmpty implements OutboxMessage {
    public Visible getAllNull() {
      return new Visible(null);
    }

    public Map<String, String> getEmptyMap() {
      return Map.of();
    }

    public Ignored getIgnored() {
      return new Ignored();
    }

    public Marker getMarker() {
      return new Marker();
    }

    public java.util.List<Marker> getMarkers() {
      return java.util.List.of(new Marker(), new Marker());
    }

    public String getText() {
      return "{}";
    }
  }

  /** A class without instance state. */
  public static final class Marker {
    static final String KIND = "marker";
  }

  /** State the application keeps out of the JSON on purpose. */
  public static final class Ignored {
    @jakarta.json.bind.annotation.JsonbTransient
    private final String secret = "s";
    private final transient String cache = "c";
  }

  // ---- 10-11. transaction and outbox ----

  @Test
  void publish_in_a_rollback_only_transaction_says_so_and_writes_nothing() throws Exception {
    UserTransaction transaction = com.arjuna.ats.jta.UserTransaction.userTransaction();
    transaction.begin();
    try {
      container.transactionManager().setRollbackOnly();
      assertThatThrownBy(() -> outbox.publish(OUTBOX, Headered.key("doomed")))
          .isInstanceOf(OutboxTransactionRequiredException.class)
          .hasMessageContaining("Outbox 'orders'")
          .hasMessageContaining("marked for rollback")
          .satisfies(e -> assertThat(((OutboxTransactionRequiredException) e).outbox()).isEqualTo(OUTBOX));
    } finally {
      transaction.rollback();
    }
    assertThat(Rows.messages(database(), OUTBOX)).isZero();
  }

  @Test
  void publish_after_the_transaction_timed_out_says_it_was_rolled_back_naming_the_timeout_and_writes_nothing()
      throws Exception {
    long orderId = ORDER_IDS.incrementAndGet();
    UserTransaction transaction = com.arjuna.ats.jta.UserTransaction.userTransaction();
    transaction.setTransactionTimeout(1);
    transaction.begin();
    transaction.setTransactionTimeout(0);
    try {
      container.entityManager().persist(new TestOrder(orderId, "business work"));
      Thread.sleep(1_500);
      await().atMost(WAIT).until(this::rolledBack);
      assertThatThrownBy(() -> outbox.publish(OUTBOX, Headered.key("too-late")))
          .isInstanceOf(OutboxTransactionRequiredException.class)
          .hasMessageContaining("Outbox 'orders'")
          .hasMessageContaining("no longer active")
          .hasMessageContaining("rolled back")
          .hasMessageContaining("transaction timeout of 1 s")
          .hasMessageContaining("STATUS_ROLLEDBACK")
          .hasMessageNotContaining("none is active")
          .hasMessageContaining("Nothing was written");
    } finally {
      endTimedOut(transaction);
    }
    assertThat(Rows.count(database(), "outbox_message", "")).as("message rows written").isZero();
    assertThat(Rows.count(database(), "test_order", "id = ?", orderId)).as("the business row").isZero();
  }

  @Test
  void publish_whose_transaction_times_out_between_its_check_and_its_write_says_the_transaction_ended_not_a_container_exception()
      throws Exception {
    UserTransaction transaction = com.arjuna.ats.jta.UserTransaction.userTransaction();
    transaction.setTransactionTimeout(1);
    transaction.begin();
    transaction.setTransactionTimeout(0);
    try {
      // publish has found the transaction active; the reaper rolls it back (completely) before the write.
      PausingInterceptor.pauseNextPublishUntil(this::rolledBack);
      assertThatThrownBy(() -> outbox.publish(OUTBOX, Headered.key("raced")))
          .isInstanceOf(dev.outboxer.OutboxException.class)
          .isNotInstanceOf(jakarta.enterprise.context.ContextNotActiveException.class)
          .hasMessageContaining("Outbox 'orders'")
          .hasMessageContaining("ended while publish")
          .hasMessageContaining("rolled back")
          .hasMessageContaining("Nothing was written");
    } finally {
      PausingInterceptor.disarm();
      endTimedOut(transaction);
    }
    assertThat(Rows.count(database(), "outbox_message", "")).as("message rows written").isZero();
  }

  /**
   * Whether the calling thread's transaction has been rolled back completely, the reaper's work
   * done: asked of the transaction itself (TransactionManager#getStatus never said STATUS_ROLLEDBACK
   * for it here; the synchronization registry publish asks does).
   */
  private boolean rolledBack() {
    try {
      jakarta.transaction.Transaction transaction = container.transactionManager().getTransaction();
      return transaction == null || transaction.getStatus() == Status.STATUS_ROLLEDBACK;
    } catch (Exception e) {
      return true;
    }
  }

  /** Ends a transaction the reaper rolled back and frees the thread of it. */
  private void endTimedOut(UserTransaction transaction) throws Exception {
    try {
      transaction.rollback();
    } catch (Exception alreadyRolledBack) {
      // The reaper rolled it back: the thread stays associated until this call, which may say so.
    }
    if (container.transactionManager().getTransaction() != null) {
      container.transactionManager().suspend();
    }
  }

  @Test
  void publish_to_a_null_outbox_name_is_an_unknown_outbox() throws Exception {
    RuntimeException refusal = refused(() -> outbox.publish((String) null, Headered.key("k")));
    assertThat(refusal).isInstanceOf(UnknownOutboxException.class);
  }

  // ---- beyond the brief: legal but unusual inputs are stored and relayed unchanged, on every database ----

  static Stream<Arguments> unusualGroupKeys() {
    return Stream.of(
        Arguments.of("255 ASCII characters, exactly the limit", "k".repeat(255)),
        Arguments.of("254 characters and one emoji (255 code points, 256 UTF-16 units)", "k".repeat(254) + "\uD83D\uDE00"),
        Arguments.of("255 supplementary CJK characters (4 UTF-8 bytes each)", "\uD840\uDC00".repeat(255)),
        Arguments.of("a zero-width space after a letter", "a\u200B"),
        Arguments.of("a zero-width space alone (not blank for Java)", "\u200B"),
        Arguments.of("a no-break space alone (not blank for Java)", "\u00A0"),
        Arguments.of("a trailing space", "a "),
        Arguments.of("control characters other than NUL", "a\u0001\u001Fb\u007F"),
        Arguments.of("a line break and a tab", "line\nbreak\t"),
        Arguments.of("a byte order mark and a right-to-left override", "\uFEFF\u202Eabc"),
        Arguments.of("a combining accent (not normalised)", "e\u0301"),
        Arguments.of("the noncharacters U+FFFE and U+FFFF", "a\uFFFE\uFFFF"),
        Arguments.of("quotes, a backslash and LIKE wildcards", "'\"\\%_"),
        Arguments.of("SQL in the key", "'; DELETE FROM outbox_message; --"));
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @MethodSource("unusualGroupKeys")
  void an_unusual_but_valid_group_key_is_stored_and_relayed_unchanged_also_with_serialize_writes(String what,
      String key) throws Exception {
    long id = container.inTransaction(() -> outbox.publish(OUTBOX, Headered.key(key)));
    long serialId = container.inTransaction(() -> outbox.publish("serial", Headered.key(key)));

    assertThat(Rows.message(database(), id).get("group_key")).as("stored key").isEqualTo(key);
    assertThat(Rows.message(database(), serialId).get("group_key")).as("stored key, serialize-writes").isEqualTo(key);
    await().atMost(WAIT).until(() -> ScriptedRelay.timesHanded(id) >= 1 && ScriptedRelay.timesHanded(serialId) >= 1);
    assertThat(handed(id).groupKey()).as("relayed key").isEqualTo(key);
    assertThat(handed(serialId).groupKey()).as("relayed key, serialize-writes").isEqualTo(key);
  }

  @Test
  void a_group_key_of_255_characters_and_one_more_emoji_is_refused_naming_the_limit() throws Exception {
    assertInvalid(refused(() -> outbox.publish(OUTBOX, Headered.key("k".repeat(255) + "\uD83D\uDE00"))), "groupKey",
        "256 characters long", "255 characters");
  }

  @Test
  void a_group_key_of_only_line_breaks_and_tabs_is_refused_as_blank() throws Exception {
    assertInvalid(refused(() -> outbox.publish(OUTBOX, Headered.key("\n\t\r "))), "groupKey", "blank");
  }

  static Stream<Arguments> unusualHeaders() {
    Map<String, String> many = new LinkedHashMap<>();
    for (int i = 0; i < 10_000; i++) {
      many.put(String.format("h%04d", i), "");
    }
    return Stream.of(
        Arguments.of("control characters in a name and a value", Map.of("x\u0001y", "line\nbreak\u001F\u007F")),
        Arguments.of("quotes, backslashes and JSON escapes as text", Map.of("a\"b\\c", "{\"x\":\"\\u0000\"}\\")),
        Arguments.of("an empty value", Map.of("empty", "")),
        Arguments.of("a name of 255 characters, the limit", Map.of("h".repeat(255), "v")),
        Arguments.of("emoji in a name and a value", Map.of("\uD83D\uDE00", "\uD83D\uDE00".repeat(100))),
        Arguments.of("names that differ only in case", Map.of("X-Trace", "1", "x-trace", "2")),
        Arguments.of("names like Outboxer's but outside its prefix", Map.of("outbox_id", "1", "outboxId", "2",
            "outbox", "3", "outbox\u2010id", "4")),
        Arguments.of("the noncharacters U+FFFE and U+FFFF", Map.of("nc", "\uFFFE\uFFFF")),
        Arguments.of("10,000 headers within 64 KiB", many));
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @MethodSource("unusualHeaders")
  void unusual_but_valid_headers_are_stored_and_relayed_unchanged(String what, Map<String, String> headers)
      throws Exception {
    long id = container.inTransaction(() -> outbox.publish(OUTBOX, Headered.headers(headers)));

    await().atMost(WAIT).until(() -> ScriptedRelay.timesHanded(id) >= 1);
    assertThat(handed(id).headers()).isEqualTo(headers);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("reservedHeaderNames")
  void a_header_name_in_the_reserved_space_is_refused_in_any_case(String name) throws Exception {
    InvalidOutboxMessageException refusal = assertInvalidHeader(
        refused(() -> outbox.publish(OUTBOX, Headered.headers(Map.of(name, "7")))));
    assertThat(refusal.getMessage()).contains("reserved");
  }

  static Stream<String> reservedHeaderNames() {
    return Stream.of("OUTBOX-ID", "Outbox-Group-Key", "outbox-partition", "outbox-fencing-token", "outbox-anything");
  }

  @Test
  void a_header_name_of_256_characters_is_refused_naming_the_limit() throws Exception {
    InvalidOutboxMessageException refusal = assertInvalidHeader(
        refused(() -> outbox.publish(OUTBOX, Headered.headers(Map.of("h".repeat(256), "v")))));
    assertThat(refusal.getMessage()).contains("256 characters long", "255");
  }

  @Test
  void too_many_headers_are_refused_by_their_total_size_naming_the_limit() throws Exception {
    // 13,108 headers of 5 bytes each (a name of 5 characters, an empty value): 65,540 bytes.
    Map<String, String> headers = new HashMap<>();
    for (int i = 0; i < 13_108; i++) {
      headers.put(String.format("%05d", i), "");
    }
    InvalidOutboxMessageException refusal = assertInvalidHeader(
        refused(() -> outbox.publish(OUTBOX, Headered.headers(headers))));
    assertThat(refusal.getMessage()).contains("65540 bytes", "65536 bytes");
  }

  @Test
  void an_empty_payload_is_stored_and_relayed_as_zero_bytes() throws Exception {
    SwitchableCodec.returning(new byte[0]);
    long id = container.inTransaction(() -> outbox.publish(OUTBOX, Headered.key("empty")));

    await().atMost(WAIT).until(() -> ScriptedRelay.timesHanded(id) >= 1);
    assertThat(handed(id).payload()).isEmpty();
  }

  @Test
  void a_payload_of_every_byte_value_is_relayed_unchanged() throws Exception {
    byte[] payload = new byte[512];
    for (int i = 0; i < payload.length; i++) {
      payload[i] = (byte) i;
    }
    SwitchableCodec.returning(payload);
    long id = container.inTransaction(() -> outbox.publish(OUTBOX, Headered.key("bytes")));

    await().atMost(WAIT).until(() -> ScriptedRelay.timesHanded(id) >= 1);
    assertThat(handed(id).payload()).isEqualTo(payload);
  }

  @Test
  void a_payload_exactly_at_the_configured_limit_is_accepted_and_one_byte_more_is_refused_naming_the_key()
      throws Exception {
    SwitchableCodec.returning(new byte[1024]);
    long id = container.inTransaction(() -> outbox.publish("small", Headered.key("at-limit")));
    assertThat(Rows.message(database(), id)).as("the 1,024-byte message").isNotNull();
    Rows.clear(database());

    SwitchableCodec.returning(new byte[1025]);
    RuntimeException refusal = refused(() -> outbox.publish("small", Headered.key("over")));
    assertThat(refusal).isInstanceOf(InvalidOutboxMessageException.class)
        .hasMessageContaining("Outbox 'small'").hasMessageContaining("1025 bytes")
        .hasMessageContaining("1024 bytes").hasMessageContaining("outbox.small.max-payload-size");
    assertThat(((InvalidOutboxMessageException) refusal).field()).isEqualTo("payload");
  }

  @Test
  void the_payload_limit_in_force_is_the_databases_own() {
    MessageLimits.Limits limits = container.select(MessageLimits.class).of(OUTBOX);
    switch (database()) {
      case POSTGRESQL -> assertThat(limits.maxPayloadBytes()).as("bytea: 1 GiB - 1").isEqualTo((1L << 30) - 1);
      case H2 -> assertThat(limits.maxPayloadBytes()).as("VARBINARY(1000000000)").isEqualTo(1_000_000_000L);
      case MARIADB -> {
        long packet = ((Number) Rows.query(database(), "SELECT @@max_allowed_packet AS p").get(0).get("p")).longValue();
        assertThat(limits.maxPayloadBytes()).as("half of max_allowed_packet less 1,088 KiB")
            .isEqualTo(Math.max(1024, (packet - 1088 * 1024) / 2));
        assertThat(limits.payloadLimitSource()).contains("max_allowed_packet");
      }
    }
  }

  @Test
  void a_message_class_without_a_simple_name_is_refused_naming_the_type() throws Exception {
    OutboxMessage anonymous = new OutboxMessage() {};
    assertInvalid(refused(() -> outbox.publish(OUTBOX, anonymous)), "type", "no simple name");
  }

  @Test
  void a_message_type_of_256_characters_is_refused_naming_the_limit() throws Exception {
    assertInvalid(refused(() -> outbox.publish(OUTBOX, new LongTypeName())), "type", "256 characters long", "255");
  }

  private static final String SIXTY_FOUR = "tttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt";

  /** A message whose declared type is one character longer than the column. */
  @Outboxed(value = OUTBOX, type = SIXTY_FOUR + SIXTY_FOUR + SIXTY_FOUR + SIXTY_FOUR)
  public static final class LongTypeName implements OutboxMessage {
    public String getText() {
      return "x";
    }
  }

  @Test
  void publish_without_a_transaction_says_so_and_writes_nothing() {
    assertThatThrownBy(() -> outbox.publish(OUTBOX, Headered.key("no-tx")))
        .isInstanceOf(OutboxTransactionRequiredException.class)
        .hasMessageContaining("Outbox 'orders'").hasMessageContaining("needs an active JTA transaction");
    assertThat(Rows.count(database(), "outbox_message", "")).isZero();
  }

  // ---- helpers ----

  /** A publish call that may throw. */
  @FunctionalInterface
  interface Publish {
    long call();
  }

  /**
   * Runs the publish in a transaction that also writes a business row, then commits. Fails unless
   * publish threw, the transaction stayed active (not marked for rollback), the commit succeeded
   * with the business row, and no message row was written.
   */
  // ---- a relay whose MessageConstraints refuse (issue 11, "Deliver" 1: characters a relay cannot carry) ----

  @Test
  void a_header_the_relays_destination_refuses_is_refused_at_publish_naming_the_header_and_the_relays_reason()
      throws Exception {
    RuntimeException refusal =
        refused(() -> outbox.publish("strict", Headered.headers(Map.of("JMSCorrelationID", "c"))));
    assertInvalidFor("strict", refusal, "header 'JMSCorrelationID'", "collides with the JMS header fields");
  }

  @Test
  void a_message_the_relays_destination_refuses_as_a_whole_is_refused_at_publish_naming_the_message_and_the_limit()
      throws Exception {
    // 390 payload bytes are under the relay's payload limit of 500, 10 header bytes under its 64; together with the
    // headers the message is 400 + 1 bytes, over the destination's 400 for the whole message.
    SwitchableCodec.returning(new byte[390]);
    RuntimeException refusal = refused(() -> outbox.publish("strict", Headered.headers(Map.of("tenant", "acme0"))));
    assertInvalidFor("strict", refusal, "message", "the message is 401 bytes with its attributes",
        "the destination takes at most 400");
  }

  @Test
  void headers_over_the_relays_header_limit_are_refused_at_publish_naming_the_relays_limit() throws Exception {
    RuntimeException refusal = refused(() -> outbox.publish("strict", Headered.headers(Map.of("h", "v".repeat(64)))));
    assertInvalidFor("strict", refusal, "headers", "the headers take 65 bytes", "the limit is 64 bytes",
        "(the relay's destination)");
  }

  @Test
  void a_payload_over_the_relays_payload_limit_is_refused_at_publish_naming_the_relays_destination() throws Exception {
    SwitchableCodec.returning(new byte[501]);
    RuntimeException refusal = refused(() -> outbox.publish("strict", Headered.key("p")));
    assertInvalidFor("strict", refusal, "payload", "501 bytes", "the limit is 500 bytes",
        "the largest message the strict relay's destination takes");
  }

  @Test
  void a_message_the_relays_destination_takes_is_published_and_relayed_through_it() throws Exception {
    SwitchableCodec.returning(new byte[100]);
    long id = container.inTransaction(() -> outbox.publish("strict", Headered.headers(Map.of("tenant", "acme"))));
    await().atMost(WAIT).until(() -> Rows.message(database(), id) == null);
  }

  private static void assertInvalidFor(String outboxName, RuntimeException refusal, String field, String... words) {
    assertThat(refusal).isInstanceOf(InvalidOutboxMessageException.class);
    InvalidOutboxMessageException invalid = (InvalidOutboxMessageException) refusal;
    assertThat(invalid.field()).as("field of: " + invalid.getMessage()).isEqualTo(field);
    assertThat(invalid.getMessage()).contains("'" + outboxName + "'").contains(words).contains("Nothing was written");
  }

  RuntimeException refused(Publish publish) throws Exception {
    long orderId = ORDER_IDS.incrementAndGet();
    AtomicReference<RuntimeException> thrown = new AtomicReference<>();
    AtomicReference<Long> acceptedId = new AtomicReference<>();
    AtomicInteger statusAfter = new AtomicInteger(-1);
    Exception commitFailure = null;
    try {
      container.inTransaction(() -> {
        container.entityManager().persist(new TestOrder(orderId, "business work"));
        try {
          acceptedId.set(publish.call());
        } catch (RuntimeException e) {
          thrown.set(e);
        }
        statusAfter.set(container.transactionManager().getStatus());
      });
    } catch (Exception e) {
      commitFailure = e;
    }
    if (thrown.get() == null) {
      fail("publish accepted the message (id " + acceptedId.get() + ")"
          + (commitFailure == null ? "" : "; the commit then failed: " + rootCause(commitFailure)));
    }
    assertThat(statusAfter.get()).as("transaction status after the refused publish (0 = active, 1 = marked"
        + " rollback); publish threw " + thrown.get()).isEqualTo(Status.STATUS_ACTIVE);
    assertThat(commitFailure).as("the caller commits its other work after a refused publish").isNull();
    assertThat(Rows.count(database(), "test_order", "id = ?", orderId)).as("the business row").isEqualTo(1);
    assertThat(Rows.count(database(), "outbox_message", "")).as("message rows written").isZero();
    return thrown.get();
  }

  /**
   * Like {@link #refused}, and then the same transaction publishes a good message after the
   * refusal (with the built-in codec again if it was the one that refused): that message, and only
   * it, is committed with the business row.
   */
  RuntimeException refusedThenAnotherPublished(Publish publish) throws Exception {
    long orderId = ORDER_IDS.incrementAndGet();
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    AtomicReference<Long> acceptedId = new AtomicReference<>();
    AtomicReference<Long> afterId = new AtomicReference<>();
    AtomicInteger statusAfter = new AtomicInteger(-1);
    Exception commitFailure = null;
    try {
      container.inTransaction(() -> {
        container.entityManager().persist(new TestOrder(orderId, "business work"));
        try {
          acceptedId.set(publish.call());
        } catch (Throwable e) {
          thrown.set(e);
        }
        statusAfter.set(container.transactionManager().getStatus());
        if (SwitchableCodec.mode() != SwitchableCodec.Mode.BUILT_IN) {
          // The built-in codec must still work after its failure; a failing test codec is switched back.
          SwitchableCodec.mode(SwitchableCodec.Mode.JSON);
        }
        afterId.set(outbox.publish(OUTBOX, Headered.key("after-the-refusal")));
      });
    } catch (Exception e) {
      commitFailure = e;
    }
    if (thrown.get() == null) {
      fail("publish accepted the message (id " + acceptedId.get() + ")"
          + (commitFailure == null ? "" : "; the commit then failed: " + rootCause(commitFailure)));
    }
    assertThat(thrown.get()).as("what publish threw").isInstanceOf(RuntimeException.class);
    assertThat(statusAfter.get()).as("transaction status after the refused publish (0 = active, 1 = marked"
        + " rollback); publish threw " + thrown.get()).isEqualTo(Status.STATUS_ACTIVE);
    assertThat(commitFailure).as("the caller publishes again and commits after a refused publish").isNull();
    assertThat(Rows.count(database(), "test_order", "id = ?", orderId)).as("the business row").isEqualTo(1);
    assertThat(Rows.count(database(), "outbox_message", "")).as("message rows written").isEqualTo(1);
    assertThat(Rows.message(database(), afterId.get())).as("the message published after the refusal").isNotNull();
    return (RuntimeException) thrown.get();
  }

  static InvalidOutboxMessageException assertInvalid(RuntimeException refusal, String field, String... words) {
    assertThat(refusal).isInstanceOf(InvalidOutboxMessageException.class);
    InvalidOutboxMessageException invalid = (InvalidOutboxMessageException) refusal;
    assertThat(invalid.field()).as("field of: " + invalid.getMessage()).isEqualTo(field);
    assertThat(invalid.getMessage()).contains("'" + OUTBOX + "'");
    if (words.length > 0) {
      assertThat(invalid.getMessage()).contains(words);
    }
    return invalid;
  }

  /** A header problem names either the headers as a whole or the header by name. */
  static InvalidOutboxMessageException assertInvalidHeader(RuntimeException refusal) {
    assertThat(refusal).isInstanceOf(InvalidOutboxMessageException.class);
    InvalidOutboxMessageException invalid = (InvalidOutboxMessageException) refusal;
    assertThat(invalid.field()).as("field of: " + invalid.getMessage()).matches("headers|header '.*'");
    assertThat(invalid.getMessage()).contains("'" + OUTBOX + "'");
    return invalid;
  }

  static OutboxRecord handed(long id) {
    return ScriptedRelay.seen().stream().flatMap(seen -> seen.records().stream()).filter(r -> r.id() == id)
        .findFirst().orElseThrow();
  }

  static Throwable rootCause(Throwable failure) {
    Throwable cause = failure;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    return cause;
  }

  /** A message whose JSON payload is a little over {@code bytes} long. */
  OutboxMessage payloadOf(int bytes) {
    return new Headered(null, Map.of(), "x".repeat(bytes));
  }
}
