package dev.outboxer.cdi.internal.publish;

import dev.outboxer.spi.PayloadCodec;

/** Outboxer's own JSON-B codec, for tests outside this package (it is package-private). */
public final class BuiltInCodec {

  private BuiltInCodec() {}

  /** A new instance of the codec Outboxer uses when the application has none. */
  public static PayloadCodec create() {
    return JsonbPayloadCodec.create();
  }
}
