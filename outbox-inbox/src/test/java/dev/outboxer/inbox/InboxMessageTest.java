package dev.outboxer.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The values an {@link InboxMessage} refuses are exactly those the outbox refuses at publish
 * ({@code MessageChecks} in outbox-cdi): a key the outbox relays is accepted, one it refuses never
 * reaches the inbox's database.
 */
class InboxMessageTest {

  private static final String EMOJI = "\uD83D\uDE00"; // U+1F600: one code point, two UTF-16 units

  @Test
  void aGroupKeyOf255EmojiIsAcceptedAsTheOutboxAcceptsIt() {
    String key = EMOJI.repeat(255);

    assertThat(key.length()).isEqualTo(510);
    assertThat(new InboxMessage("orders", key, 1).groupKey()).isEqualTo(key);
  }

  @Test
  void aGroupKeyOf256CodePointsIsRefusedNamingItsLengthAndTheLimit() {
    assertThatThrownBy(() -> new InboxMessage("orders", EMOJI.repeat(256), 7))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("InboxMessage.groupKey")
        .hasMessageContaining("256 characters")
        .hasMessageContaining("at most 255")
        .hasMessageContaining("code points");
    assertThatThrownBy(() -> new InboxMessage("orders", "k".repeat(256), 7))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("256 characters");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "\t", " \n "})
  void anEmptyOrBlankGroupKeyIsRefusedAsAtPublish(String key) {
    assertThatThrownBy(() -> new InboxMessage("orders", key, 7))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("InboxMessage.groupKey")
        .hasMessageContaining("blank")
        .hasMessageContaining("message 7 of outbox 'orders'");
  }

  @Test
  void aGroupKeyWithANulCharacterIsRefusedNamingWhere() {
    assertThatThrownBy(() -> new InboxMessage("orders", "order\u00001", 7))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("InboxMessage.groupKey")
        .hasMessageContaining("NUL")
        .hasMessageContaining("index 5");
  }

  @ParameterizedTest
  @ValueSource(strings = {"order\uD83D", "\uDE00order", "a\uDE00\uD83Db"})
  void aGroupKeyWithAnUnpairedSurrogateIsRefused(String key) {
    assertThatThrownBy(() -> new InboxMessage("orders", key, 7))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("InboxMessage.groupKey")
        .hasMessageContaining("unpaired surrogate");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "or ders", "orders\u0000", "ordérs"})
  void anOutboxNameTheOutboxWouldNotAllowIsRefused(String outbox) {
    assertThatThrownBy(() -> new InboxMessage(outbox, "g", 7))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("InboxMessage.outbox")
        .hasMessageContaining("letters, digits, '_' or '-'");
  }

  @Test
  void anOutboxNameOf100CharactersIsAcceptedAnd101Refused() {
    assertThat(new InboxMessage("o".repeat(100), null, 1).outbox()).hasSize(100);
    assertThatThrownBy(() -> new InboxMessage("o".repeat(101), null, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("101 characters");
  }

  @Test
  void aNonPositiveIdIsRefused() {
    assertThatThrownBy(() -> new InboxMessage("orders", "g", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("InboxMessage.id 0");
  }
}
