package dev.outboxer.cdi.internal.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import dev.outboxer.InvalidOutboxMessageException;
import dev.outboxer.Outbox;
import dev.outboxer.OutboxMessage;
import dev.outboxer.OutboxTransactionRequiredException;
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
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

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
        .beans(ScriptedRelay.class, SwitchableCodec.class)
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
  void publish_to_a_null_outbox_name_is_an_unknown_outbox() throws Exception {
    RuntimeException refusal = refused(() -> outbox.publish((String) null, Headered.key("k")));
    assertThat(refusal).isInstanceOf(UnknownOutboxException.class);
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
    assertThat(Rows.messages(database(), OUTBOX)).as("message rows written").isZero();
    return thrown.get();
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
