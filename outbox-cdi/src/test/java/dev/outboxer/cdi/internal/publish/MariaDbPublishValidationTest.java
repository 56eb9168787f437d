package dev.outboxer.cdi.internal.publish;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.cdi.internal.Rows;
import dev.outboxer.testing.TestDatabase;
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
}
