package dev.outboxer.jms;

import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * The JMS message properties the relay sets, for consumers. Every message carries:
 *
 * <table>
 *   <caption>What a relayed message carries</caption>
 *   <tr><th>JMS</th><th>value</th></tr>
 *   <tr><td>body</td><td>{@code TextMessage} with the payload as text if the record's content
 *       type is textual (JSON, XML, {@code text/*}) and the payload is valid text in the content
 *       type's {@code charset} (UTF-8 if it names none); {@code BytesMessage} with the payload's
 *       exact bytes otherwise (binary types, bytes that are not valid in the charset, a charset
 *       the JVM does not know)</td></tr>
 *   <tr><td>{@code JMSType}</td><td>the message type</td></tr>
 *   <tr><td>{@code JMSXGroupID}</td><td>the group key; not set for a {@code null} key</td></tr>
 *   <tr><td>{@value #OUTBOX_ID} (long)</td><td>the outbox id: unique, increasing within a
 *       group; use it to drop duplicates</td></tr>
 *   <tr><td>{@value #OUTBOX_GROUP_KEY}</td><td>the group key; not set for a {@code null} key</td></tr>
 *   <tr><td>{@value #OUTBOX_NAME}</td><td>the outbox name</td></tr>
 *   <tr><td>{@value #OUTBOX_TYPE}</td><td>the message type (as {@code JMSType}, which some
 *       providers restrict)</td></tr>
 *   <tr><td>{@value #OUTBOX_CONTENT_TYPE}</td><td>the payload's media type, e.g. {@code
 *       application/json}</td></tr>
 *   <tr><td>{@value #OUTBOX_PARTITION} (int)</td><td>the outbox partition the message was relayed
 *       from</td></tr>
 *   <tr><td>{@value #OUTBOX_FENCING_TOKEN} (long)</td><td>the fencing token of the partition claim
 *       that sent it; see {@link dev.outboxer.spi.RelayBatch#fencingToken()}</td></tr>
 *   <tr><td>one string property per header</td><td>named by {@link #forHeader(String)}</td></tr>
 * </table>
 *
 * <p>The {@code outbox*} names are the JMS spellings of {@link dev.outboxer.spi.StandardHeaders}:
 * the header name in camel case ({@code outbox-fencing-token} becomes {@code outboxFencingToken}),
 * because JMS property names must be Java identifiers.
 */
public final class JmsMessageProperties {

  /** Long property: the outbox id of the message. */
  public static final String OUTBOX_ID = "outboxId";

  /** String property: the group key; absent for an unordered message. */
  public static final String OUTBOX_GROUP_KEY = "outboxGroupKey";

  /** String property: the outbox name. */
  public static final String OUTBOX_NAME = "outboxName";

  /** String property: the message type, as also set in {@code JMSType}. */
  public static final String OUTBOX_TYPE = "outboxType";

  /** String property: the payload's media type. */
  public static final String OUTBOX_CONTENT_TYPE = "outboxContentType";

  /** Int property: the outbox partition the message was relayed from. */
  public static final String OUTBOX_PARTITION = "outboxPartition";

  /**
   * Long property: the fencing token of the partition claim that sent the message. Within one
   * outbox partition, a message with a lower token than one already consumed was sent by a node
   * that had lost its claim (with a plain connection factory only: see the package documentation).
   */
  public static final String OUTBOX_FENCING_TOKEN = "outboxFencingToken";

  /** The JMS-defined property that brokers use for message groups. */
  public static final String JMSX_GROUP_ID = "JMSXGroupID";

  /** Put before header names that would otherwise clash with reserved names. */
  public static final String HEADER_PREFIX = "outboxHeader_";

  /** Words a JMS identifier must not be (message selector syntax). */
  private static final Set<String> SELECTOR_WORDS =
      Set.of("NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE");

  private JmsMessageProperties() {}

  /**
   * The property name a record header is sent under. JMS property names must be Java identifiers
   * and must not use reserved names, so the relay maps header names as follows:
   *
   * <ol>
   *   <li>{@code .} becomes {@code _DOT_} and {@code -} becomes {@code _HYPHEN_} (the convention of
   *       Apache Camel's default JMS key format, so Camel consumers get the header names back);
   *       every other character that cannot be part of a Java identifier becomes {@code _x} plus
   *       its four hex digits (UTF-16) plus {@code _}, e.g. {@code :} becomes {@code _x003A_}.</li>
   *   <li>If the result is empty, cannot start a Java identifier (a digit), starts with {@code _},
   *       {@code JMS} or {@code outbox} (reserved for JMS, providers and this relay), or is a
   *       selector keyword ({@code NULL}, {@code TRUE}, {@code AND}, ...; any case), {@value
   *       #HEADER_PREFIX} is put before it.</li>
   * </ol>
   *
   * Examples: {@code traceparent} stays {@code traceparent}; {@code x-tenant} becomes {@code
   * x_HYPHEN_tenant}; {@code app.version} becomes {@code app_DOT_version}; {@code 3ds} becomes
   * {@code outboxHeader_3ds}; {@code JMSType} becomes {@code outboxHeader_JMSType}. Different
   * header names can in rare cases map to one property name ({@code a.b} and {@code a_DOT_b}):
   * {@code publish} refuses a message with two such headers (the relay's constraints), so that
   * neither is lost; a message stored before that check sends the last one in name order.
   *
   * @param header a header name
   * @return a valid JMS property name that no relay-defined property uses
   */
  public static String forHeader(String header) {
    Objects.requireNonNull(header, "header");
    StringBuilder name = new StringBuilder(header.length() + 8);
    for (int i = 0; i < header.length(); i++) {
      char c = header.charAt(i);
      if (c == '.') {
        name.append("_DOT_");
      } else if (c == '-') {
        name.append("_HYPHEN_");
      } else if (Character.isJavaIdentifierPart(c) && !Character.isIdentifierIgnorable(c)) {
        name.append(c);
      } else {
        name.append(String.format(Locale.ROOT, "_x%04X_", (int) c));
      }
    }
    String mapped = name.toString();
    return reserved(mapped) ? HEADER_PREFIX + mapped : mapped;
  }

  private static boolean reserved(String name) {
    return name.isEmpty()
        || !Character.isJavaIdentifierStart(name.charAt(0))
        || name.startsWith("_")
        || name.startsWith("JMS")
        || name.startsWith("outbox")
        || SELECTOR_WORDS.contains(name.toUpperCase(Locale.ROOT));
  }
}
