package dev.outboxer.sqs;

/**
 * The message attribute the SQS relay adds besides {@link dev.outboxer.spi.StandardHeaders}, for
 * consumers.
 *
 * <p>A message body is the payload as text when the payload's content type is textual (JSON, XML,
 * {@code text/*}), it is valid UTF-8 and every character is one SQS accepts. Otherwise the body is
 * the payload in standard Base64 (RFC 4648, with padding) and the attribute {@value
 * #BODY_ENCODING} is {@value #BASE64}; a consumer decodes the body when, and only when, that
 * attribute is present.
 */
public final class SqsMessageAttributes {

  /** Present, with the value {@value #BASE64}, when the body is the Base64 of the payload. */
  public static final String BODY_ENCODING = "outbox-body-encoding";

  /** The value of {@value #BODY_ENCODING} for a Base64 body. */
  public static final String BASE64 = "base64";

  private SqsMessageAttributes() {}
}
