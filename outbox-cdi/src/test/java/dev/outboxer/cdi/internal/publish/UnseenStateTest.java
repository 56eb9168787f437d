package dev.outboxer.cdi.internal.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxer.OutboxMessage;
import dev.outboxer.spi.PayloadCodec;
import jakarta.json.bind.adapter.JsonbAdapter;
import jakarta.json.bind.annotation.JsonbProperty;
import jakarta.json.bind.annotation.JsonbTypeAdapter;
import jakarta.json.bind.annotation.JsonbVisibility;
import jakarta.json.bind.config.PropertyVisibilityStrategy;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The built-in codec's check for state JSON-B drops (issue 24, item 3), without a database: what it
 * refuses, with the path and the class, and the empty objects it must leave alone.
 */
class UnseenStateTest {

  private final PayloadCodec codec = JsonbPayloadCodec.create();

  @Test
  void a_field_whose_class_shows_json_b_no_property_is_refused_naming_the_path_the_class_and_its_fields() {
    assertThatThrownBy(() -> codec.encode(new Holder(new Hidden("12.50", "EUR"))))
        .isInstanceOfSatisfying(UnseenState.Dropped.class, dropped -> assertThat(dropped.path()).isEqualTo(
            "payload.body"))
        .hasMessage("the JSON-B codec writes the " + Hidden.class.getName() + " at payload.body as {}: its class keeps"
            + " state (amount, currency) but shows JSON-B no property (no public getter or field, no @JsonbProperty,"
            + " no @JsonbVisibility), so that state would be dropped silently and the message relayed without it. Add"
            + " public getters (or make the fields public), or show the fields with @JsonbVisibility; mark state that"
            + " is not part of the message transient or @JsonbTransient");
  }

  @Test
  void hidden_state_deep_in_lists_arrays_maps_and_optionals_is_refused_naming_the_path() {
    assertThat(pathOf(new Holder(List.of(List.of(new Open("a"), new Hidden("1", "X"))))))
        .isEqualTo("payload.body[0][1]");
    assertThat(pathOf(new Holder(new Object[] {new Open("a"), new Hidden("1", "X")}))).isEqualTo("payload.body[1]");
    assertThat(pathOf(new Holder(Map.of("k", Map.of("inner", new Hidden("1", "X")))))).isEqualTo("payload.body.k.inner");
    assertThat(pathOf(new Holder(Optional.of(new Hidden("1", "X"))))).isEqualTo("payload.body");
    assertThat(pathOf(new Holder(new Wrapper(new Hidden("1", "X"))))).isEqualTo("payload.body.inner");
    assertThat(pathOf(new Holder(new Inherited()))).isEqualTo("payload.body");
  }

  @Test
  void empty_objects_the_application_means_are_encoded_as_before() {
    assertThat(json(new Holder(new Marker()))).isEqualTo("{\"body\":{}}");
    assertThat(json(new Holder(Map.of()))).isEqualTo("{\"body\":{}}");
    assertThat(json(new Holder(new Open(null)))).isEqualTo("{\"body\":{}}");
    assertThat(json(new Holder(new Object()))).isEqualTo("{\"body\":{}}");
    assertThat(json(new Holder(new OnlyTransient()))).isEqualTo("{\"body\":{}}");
    assertThat(json(new Holder(new EmptyRecord()))).isEqualTo("{\"body\":{}}");
    assertThat(json(new Holder(new NullRecord(null)))).isEqualTo("{\"body\":{}}");
    assertThat(json(new Holder(new Shown(null)))).isEqualTo("{\"body\":{}}");
    assertThat(json(new Holder(new Renamed(null)))).isEqualTo("{\"body\":{}}");
    assertThat(json(new Holder(new Adapted(new Hidden("1", "X"))))).isEqualTo("{\"body\":{\"value\":{}}}");
    assertThat(json(new Holder(List.of(new Marker(), Map.of())))).isEqualTo("{\"body\":[{},{}]}");
    assertThat(json(new Holder("{}"))).isEqualTo("{\"body\":\"{}\"}");
  }

  private String pathOf(OutboxMessage message) {
    try {
      codec.encode(message);
    } catch (UnseenState.Dropped dropped) {
      return dropped.path();
    }
    throw new AssertionError("accepted: " + json(message));
  }

  private String json(OutboxMessage message) {
    return new String(codec.encode(message), StandardCharsets.UTF_8);
  }

  public static final class Holder implements OutboxMessage {
    private final Object body;

    Holder(Object body) {
      this.body = body;
    }

    public Object getBody() {
      return body;
    }
  }

  public static class Hidden {
    private final String amount;
    private final String currency;

    Hidden(String amount, String currency) {
      this.amount = amount;
      this.currency = currency;
    }
  }

  public static final class Inherited extends Hidden {
    Inherited() {
      super("1", "X");
    }
  }

  public static final class Open {
    private final String name;

    Open(String name) {
      this.name = name;
    }

    public String getName() {
      return name;
    }
  }

  public static final class Wrapper {
    private final Object inner;

    Wrapper(Object inner) {
      this.inner = inner;
    }

    public Object getInner() {
      return inner;
    }
  }

  public static final class Marker {}

  public static final class OnlyTransient {
    private transient String cache = "c";
  }

  public record EmptyRecord() {}

  public record NullRecord(String value) {}

  /** Visibility shows the private field, which is null. */
  @JsonbVisibility(AllFields.class)
  public static final class Shown {
    private final String secret;

    Shown(String secret) {
      this.secret = secret;
    }
  }

  public static final class AllFields implements PropertyVisibilityStrategy {
    @Override
    public boolean isVisible(java.lang.reflect.Field field) {
      return true;
    }

    @Override
    public boolean isVisible(java.lang.reflect.Method method) {
      return false;
    }
  }

  public static final class Renamed {
    @JsonbProperty("label")
    private final String name;

    Renamed(String name) {
      this.name = name;
    }

    public String getName() {
      return name;
    }
  }

  /** An adapter writes the value as it likes, here as an empty object. */
  public static final class Adapted {
    private final Hidden value;

    Adapted(Hidden value) {
      this.value = value;
    }

    @JsonbTypeAdapter(ToEmptyMap.class)
    public Hidden getValue() {
      return value;
    }
  }

  public static final class ToEmptyMap implements JsonbAdapter<Hidden, Map<String, String>> {
    @Override
    public Map<String, String> adaptToJson(Hidden hidden) {
      return Map.of();
    }

    @Override
    public Hidden adaptFromJson(Map<String, String> json) {
      return null;
    }
  }
}
