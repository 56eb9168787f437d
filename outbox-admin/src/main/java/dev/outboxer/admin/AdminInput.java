package dev.outboxer.admin;

import jakarta.json.JsonException;
import jakarta.json.stream.JsonLocation;
import jakarta.json.stream.JsonParser;
import jakarta.json.stream.JsonParserFactory;
import jakarta.json.stream.JsonParsingException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads what a request gives the API (path ids, paging parameters, the bulk body) strictly: a value
 * is taken exactly as spelt or refused with a {@link Problem} naming the parameter or field, its
 * value and what is allowed. Nothing is coerced: {@code 1.5}, {@code 1e3}, {@code "7"} or {@code
 * 9223372036854775808} is no message id, {@code ["g"]} is no group key, and a body with a key given
 * twice or text after its object is refused rather than read one way or another.
 *
 * <p>Called only after {@link AdminGuard}: a caller who may not call learns nothing about their
 * input.
 */
final class AdminInput {

  /** The most ids one bulk call may list: the audit log and one transaction stay of a sane size. */
  static final int MAX_IDS = 10_000;
  /** The largest bulk body read: 10,000 ids of 19 digits take about 200 KB. */
  static final int MAX_BODY_BYTES = 1024 * 1024;
  /** As long as a group key may be when published (counted in code points, as the column counts). */
  static final int MAX_GROUP_KEY_LENGTH = 255;

  private static final String SHAPE = "send {\"ids\": [...]} with at least one id or {\"group\": \"...\"}";
  private static final String WHOLE_LONG = "a whole number from " + Long.MIN_VALUE + " to " + Long.MAX_VALUE
      + ", written without plus sign, leading zero, fraction or exponent";
  /** A JSON integer as RFC 8259 spells one, without fraction or exponent; also what a path or parameter may hold. */
  private static final Pattern INTEGER = Pattern.compile("-?(0|[1-9][0-9]*)");

  /** Created once: looking the JSON-P provider up is a service-loader search. */
  private static final JsonParserFactory PARSERS = jakarta.json.Json.createParserFactory(Map.of());

  private AdminInput() {}

  // ---- path and query ----

  /** @return the message id of the path segment {@code value}, exactly as written */
  static long messageId(String value) {
    Long id = parseLong(value);
    if (id == null) {
      throw bad("The message id '" + Problem.printable(value) + "' in the path is not " + WHOLE_LONG);
    }
    return id;
  }

  /** @return the page size of the parameter {@code limit}, 1 to {@value AdminProtocol#MAX_PAGE_SIZE} */
  static int limit(String value) {
    Long limit = parseLong(value);
    if (limit == null) {
      throw bad("limit=" + Problem.printable(value) + " is not a whole number: ask for 1 to "
          + AdminProtocol.MAX_PAGE_SIZE);
    }
    if (limit < 1 || limit > AdminProtocol.MAX_PAGE_SIZE) {
      throw bad("limit=" + value + " is out of range: ask for 1 to " + AdminProtocol.MAX_PAGE_SIZE);
    }
    return limit.intValue();
  }

  /** @return the message id of the parameter {@code after} */
  static long after(String value) {
    Long after = parseLong(value);
    if (after == null) {
      throw bad("after=" + Problem.printable(value) + " is not a message id: give " + WHOLE_LONG
          + " (the nextAfter of the previous page)");
    }
    return after;
  }

  /** Refuses a query parameter given more than once: which one would count is a guess. */
  static void once(UriInfo uri, String... names) {
    for (String name : names) {
      List<String> values = uri.getQueryParameters().get(name);
      if (values != null && values.size() > 1) {
        throw bad(name + " is given " + values.size() + " times: give it once");
      }
    }
  }

  /**
   * Refuses a group key no message can have: blank, longer than 255 characters, with a NUL (which
   * PostgreSQL cannot even compare) or an unpaired surrogate (which a driver would send as
   * {@code ?}, matching another group). Checked before the database sees it.
   */
  static String groupKey(String key) {
    if (key.isBlank()) {
      throw bad("group is blank (\"" + Problem.printable(key) + "\"): no message has a blank group key");
    }
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (c == '\u0000') {
        throw bad("group contains a NUL character (U+0000) at index " + i + ": no message has one (a group key"
            + " with it is refused when published)");
      }
      if (Character.isHighSurrogate(c) && i + 1 < key.length() && Character.isLowSurrogate(key.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw bad("group is not valid Unicode: an unpaired surrogate (U+" + String.format("%04X", (int) c)
            + ") at index " + i + "; no message has one");
      }
    }
    int length = key.codePointCount(0, key.length());
    if (length > MAX_GROUP_KEY_LENGTH) {
      throw bad("group is " + length + " characters long; the limit is " + MAX_GROUP_KEY_LENGTH
          + ", as for every group key");
    }
    return key;
  }

  // ---- the bulk body ----

  /**
   * Reads a bulk body: {@code Content-Type: application/json} (UTF-8), at most {@value
   * #MAX_BODY_BYTES} bytes, one JSON object with either {@code "ids"} (1 to {@value #MAX_IDS}
   * message ids) or {@code "group"} (a group key), nothing else.
   */
  static Selection selection(HttpHeaders headers, InputStream body) {
    requireJson(headers.getHeaderString(HttpHeaders.CONTENT_TYPE));
    String length = headers.getHeaderString(HttpHeaders.CONTENT_LENGTH);
    if (length != null && INTEGER.matcher(length).matches() && (length.length() > 18
        || Long.parseLong(length) > MAX_BODY_BYTES)) {
      throw tooLarge(length + " bytes");
    }
    String text = utf8(read(body));
    if (text.chars().allMatch(AdminInput::jsonWhitespace)) {
      throw bad("The body is empty: " + SHAPE);
    }
    return parse(text);
  }

  private static void requireJson(String contentType) {
    if (contentType == null) {
      throw unsupported("The body has no Content-Type: send it as application/json");
    }
    MediaType type;
    try {
      type = MediaType.valueOf(contentType);
    } catch (IllegalArgumentException notAType) {
      throw unsupported("Content-Type '" + Problem.printable(contentType) + "' is no media type: send the body as"
          + " application/json");
    }
    if (!type.getType().equalsIgnoreCase("application") || !type.getSubtype().equalsIgnoreCase("json")) {
      throw unsupported("Content-Type " + Problem.printable(type.getType() + "/" + type.getSubtype())
          + " is not taken: send the body as application/json");
    }
    String charset = type.getParameters().get(MediaType.CHARSET_PARAMETER);
    if (charset != null && !charset.equalsIgnoreCase("UTF-8")) {
      throw unsupported("charset=" + Problem.printable(charset) + " is not taken: send the body as application/json"
          + " in UTF-8, as JSON is");
    }
  }

  private static byte[] read(InputStream body) {
    try (body) {
      // One byte more than the limit tells a body at the limit from a larger one without reading the rest.
      byte[] bytes = body.readNBytes(MAX_BODY_BYTES + 1);
      if (bytes.length > MAX_BODY_BYTES) {
        throw tooLarge("more than " + MAX_BODY_BYTES + " bytes");
      }
      return bytes;
    } catch (IOException e) {
      throw new UncheckedIOException("Could not read the request body", e);
    }
  }

  /** Decodes strictly: a byte that is not UTF-8 is refused, not replaced by U+FFFD (which could name another group). */
  private static String utf8(byte[] bytes) {
    CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    CharBuffer out = CharBuffer.allocate(bytes.length);
    CoderResult result = decoder.decode(in, out, true);
    if (!result.isError()) {
      result = decoder.flush(out);
    }
    if (result.isError()) {
      throw bad("The body is not valid UTF-8: byte " + in.position() + " (counting from 0) is 0x"
          + String.format("%02X", bytes[in.position()] & 0xFF) + "; send JSON in UTF-8");
    }
    return out.flip().toString();
  }

  private static Selection parse(String text) {
    Selection selection = new Selection();
    Set<String> keys = new HashSet<>();
    try (JsonParser parser = PARSERS.createParser(new StringReader(text))) {
      JsonParser.Event first = parser.next();
      if (first != JsonParser.Event.START_OBJECT) {
        throw bad("The body must be a JSON object (" + SHAPE + "), not " + kind(first, parser));
      }
      for (JsonParser.Event event = parser.next(); event != JsonParser.Event.END_OBJECT; event = parser.next()) {
        String key = parser.getString();
        if (!keys.add(key)) {
          throw bad("The key '" + Problem.printable(key) + "' is given twice in the body: give each key once");
        }
        switch (key) {
          case "ids" -> selection.ids = ids(parser);
          case "group" -> selection.group = group(parser);
          default -> throw bad("The body has the key '" + Problem.printable(key) + "': it takes \"ids\" (message"
              + " ids) or \"group\" (a group key), nothing else");
        }
      }
      requireEnd(parser);
    } catch (JsonParsingException malformed) {
      throw bad("The body is not valid JSON " + where(malformed.getLocation()) + ": " + SHAPE);
    } catch (JsonException | NoSuchElementException malformed) {
      throw bad("The body is not valid JSON: " + SHAPE);
    }
    if (keys.contains("ids") == keys.contains("group") || keys.contains("ids") && selection.ids.isEmpty()) {
      throw bad("Send either {\"ids\": [...]} with at least one id or {\"group\": \"...\"}, not both and not"
          + " neither");
    }
    return selection;
  }

  /** Text after the object would be read by one parser and ignored by another: refused. */
  private static void requireEnd(JsonParser parser) {
    boolean more;
    try {
      more = parser.hasNext();
    } catch (JsonParsingException trailing) {
      throw bad("The body has more after its JSON object " + where(trailing.getLocation()) + ": send one object");
    }
    if (more) {
      throw bad("The body has more after its JSON object " + where(parser.getLocation()) + ": send one object");
    }
  }

  private static List<Long> ids(JsonParser parser) {
    JsonParser.Event start = parser.next();
    if (start != JsonParser.Event.START_ARRAY) {
      throw bad("ids is " + kind(start, parser) + ": it must be a list of message ids, like [17, 18]");
    }
    List<Long> ids = new ArrayList<>();
    int count = 0;
    for (JsonParser.Event event = parser.next(); event != JsonParser.Event.END_ARRAY; event = parser.next()) {
      Long id = event == JsonParser.Event.VALUE_NUMBER ? parseLong(parser.getString()) : null;
      if (id == null) {
        throw bad("ids[" + count + "] is " + value(event, parser) + ": a message id is " + WHOLE_LONG);
      }
      // Counted to the end, kept to the limit: the refusal can say how many there were.
      if (count++ < MAX_IDS) {
        ids.add(id);
      }
    }
    if (count > MAX_IDS) {
      throw new WebApplicationException(Problem.answer(413, "The body lists " + count
          + " ids; one call takes at most " + MAX_IDS + ": split the list").build());
    }
    return ids;
  }

  private static String group(JsonParser parser) {
    JsonParser.Event value = parser.next();
    if (value != JsonParser.Event.VALUE_STRING) {
      throw bad("group is " + kind(value, parser) + ": it must be a string, the group key");
    }
    return groupKey(parser.getString());
  }

  /** What a JSON value is, for an error: its kind, with the text of a number or string. */
  private static String kind(JsonParser.Event event, JsonParser parser) {
    return switch (event) {
      case VALUE_NUMBER -> "a number (" + Problem.printable(parser.getString()) + ")";
      case VALUE_STRING -> "a string (\"" + Problem.printable(parser.getString()) + "\")";
      default -> value(event, parser);
    };
  }

  /** A JSON value for an error: a number as written, a string quoted, else its kind. */
  private static String value(JsonParser.Event event, JsonParser parser) {
    return switch (event) {
      case VALUE_NUMBER -> Problem.printable(parser.getString());
      case VALUE_STRING -> "the string \"" + Problem.printable(parser.getString()) + "\"";
      case VALUE_TRUE -> "true";
      case VALUE_FALSE -> "false";
      case VALUE_NULL -> "null";
      case START_ARRAY -> "an array";
      case START_OBJECT -> "an object";
      default -> event.toString();
    };
  }

  private static String where(JsonLocation location) {
    return location == null ? "" : "(at line " + location.getLineNumber() + ", column " + location.getColumnNumber()
        + ")";
  }

  /** @return the long {@code text} spells exactly ({@code -?(0|[1-9][0-9]*)}), or null */
  private static Long parseLong(String text) {
    if (text == null || text.length() > 20 || !INTEGER.matcher(text).matches()) {
      return null;
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException outOfRange) {
      return null;
    }
  }

  private static boolean jsonWhitespace(int c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
  }

  private static WebApplicationException bad(String error) {
    return Problem.refusal(Response.Status.BAD_REQUEST, error);
  }

  private static WebApplicationException unsupported(String error) {
    return Problem.refusal(Response.Status.UNSUPPORTED_MEDIA_TYPE, error);
  }

  private static WebApplicationException tooLarge(String size) {
    return new WebApplicationException(Problem.answer(413, "The body has " + size + "; the limit is "
        + MAX_BODY_BYTES + " bytes (" + MAX_IDS + " ids take about 200,000)").build());
  }
}
