package dev.outboxer.cdi.internal.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxer.cdi.internal.Headered;
import dev.outboxer.cdi.internal.Rows;
import dev.outboxer.cdi.internal.ScriptedRelay;
import dev.outboxer.cdi.internal.SwitchableCodec;
import dev.outboxer.testing.TestDatabase;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MariaDbPublishValidationTest extends PublishValidationContractTest {
  @Override
  TestDatabase database() {
    return TestDatabase.MARIADB;
  }

  /** Issue 11, today 8: MariaDB refuses a statement larger than max_allowed_packet, today at commit. */
  @Test
  void a_20_mb_payload_is_refused_at_publish_naming_the_limit_and_max_allowed_packet() throws Exception {
    long limit = ((Number) Rows.query(database(), "SELECT @@max_allowed_packet AS p").get(0).get("p")).longValue();
    RuntimeException refusal = refused(() -> outbox.publish(OUTBOX, payloadOf(20 * 1024 * 1024)));

    assertInvalid(refusal, "payload", "max_allowed_packet");
    String mebibytes = (limit / (1024 * 1024)) + "";
    assertThat(refusal.getMessage()).as("names the limit (" + limit + " bytes)")
        .containsPattern(String.format("%,d", limit).replace(",", ",?") + "|" + limit + "|" + mebibytes + " ?Mi?B");
  }

  /**
   * Beyond the brief: the payload limit must leave room in max_allowed_packet for the rest of the
   * statement at its largest. The driver sends the insert as text, escaping quotes and NUL bytes of
   * the payload (two bytes each) and the backslashes of the headers' JSON, where every control
   * character is already six (\u0001): 64 KiB of headers take about 450 KiB.
   */
  @Test
  void a_payload_at_the_limit_of_bytes_the_driver_escapes_with_the_largest_escaped_headers_is_accepted_and_relayed()
      throws Exception {
    long limit = container.select(MessageLimits.class).of(OUTBOX).maxPayloadBytes();
    byte[] payload = new byte[(int) limit];
    Arrays.fill(payload, (byte) '\'');
    Map<String, String> headers = Map.of("h", "\u0001".repeat(65_535));
    SwitchableCodec.returning(payload);

    long id = container.inTransaction(() -> outbox.publish(OUTBOX, new Headered("big", headers, "x")));
    await().atMost(Duration.ofSeconds(30)).until(() -> ScriptedRelay.timesHanded(id) >= 1);
    assertThat(handed(id).payload()).hasSize((int) limit);
    assertThat(handed(id).headers()).isEqualTo(headers);
  }
}
