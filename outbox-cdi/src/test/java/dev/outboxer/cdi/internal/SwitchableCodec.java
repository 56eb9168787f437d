package dev.outboxer.cdi.internal;

import dev.outboxer.OutboxMessage;
import dev.outboxer.spi.PayloadCodec;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbBuilder;
import java.nio.charset.StandardCharsets;

/**
 * An application PayloadCodec (JSON-B) that a test can make misbehave: return null, throw, or
 * return exactly the bytes the test chose (an empty payload, one of an exact size). Add it to a
 * container with {@code beans(SwitchableCodec.class)}; it is the container's only codec. {@link
 * Mode#BUILT_IN} hands the message to Outboxer's own JSON-B codec instead, the one an application
 * without a codec gets.
 */
@ApplicationScoped
public class SwitchableCodec implements PayloadCodec {

  /** What {@link #encode} does. */
  public enum Mode { JSON, RETURN_NULL, THROW, FIXED, FAIL_WITH, BUILT_IN }

  /** The exception {@link Mode#THROW} throws, so a test can find it as the cause. */
  public static final IllegalStateException FAILURE = new IllegalStateException("codec refuses this message");

  private static volatile Mode mode = Mode.JSON;
  private static volatile byte[] fixed = new byte[0];
  private static volatile Throwable failWith;
  private static volatile PayloadCodec builtIn;
  private final Jsonb jsonb = JsonbBuilder.create();

  public static void mode(Mode newMode) {
    mode = newMode;
  }

  public static Mode mode() {
    return mode;
  }

  /** From now on every message encodes as these bytes (a copy each time). */
  public static void returning(byte[] payload) {
    fixed = payload.clone();
    mode = Mode.FIXED;
  }

  /** From now on every encode throws this, whatever it is (a checked exception or an Error too). */
  public static void throwing(Throwable failure) {
    failWith = failure;
    mode = Mode.FAIL_WITH;
  }

  /** From now on messages go to Outboxer's own JSON-B codec. */
  public static void builtIn() {
    if (builtIn == null) {
      builtIn = dev.outboxer.cdi.internal.publish.BuiltInCodec.create();
    }
    mode = Mode.BUILT_IN;
  }

  @SuppressWarnings("unchecked")
  private static <T extends Throwable> RuntimeException sneaky(Throwable failure) throws T {
    throw (T) failure;
  }

  @Override
  public String contentType() {
    return "application/json";
  }

  @Override
  public byte[] encode(OutboxMessage message) {
    return switch (mode) {
      case JSON -> jsonb.toJson(message).getBytes(StandardCharsets.UTF_8);
      case RETURN_NULL -> null;
      case THROW -> throw FAILURE;
      case FIXED -> fixed.clone();
      case FAIL_WITH -> throw SwitchableCodec.<RuntimeException>sneaky(failWith);
      case BUILT_IN -> builtIn.encode(message);
    };
  }

  @Override
  public <T> T decode(byte[] payload, Class<T> type) {
    return jsonb.fromJson(new String(payload, StandardCharsets.UTF_8), type);
  }
}
