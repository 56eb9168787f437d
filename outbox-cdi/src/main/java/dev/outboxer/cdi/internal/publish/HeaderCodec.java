package dev.outboxer.cdi.internal.publish;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Stores a message's headers as a JSON object of strings, sorted by name, and reads them back.
 * Written by hand rather than with JSON-B: headers are always strings, and reading them must not
 * depend on which payload codec the application chose. Rejects anything that is not such an
 * object, so that a corrupt row fails alone instead of being relayed with wrong headers.
 */
final class HeaderCodec {

  private HeaderCodec() {}

  static String encode(Map<String, String> headers) {
    if (headers.isEmpty()) {
      return null;
    }
    StringBuilder json = new StringBuilder(headers.size() * 32);
    json.append('{');
    boolean first = true;
    for (Map.Entry<String, String> header : new TreeMap<>(headers).entrySet()) {
      if (!first) {
        json.append(',');
      }
      first = false;
      quote(json, header.getKey());
      json.append(':');
      quote(json, header.getValue());
    }
    return json.append('}').toString();
  }

  static Map<String, String> decode(String stored) {
    if (stored == null) {
      return Map.of();
    }
    Parser parser = new Parser(stored);
    Map<String, String> headers = parser.object();
    return Collections.unmodifiableMap(headers);
  }

  private static void quote(StringBuilder json, String text) {
    json.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> json.append("\\\"");
        case '\\' -> json.append("\\\\");
        case '\n' -> json.append("\\n");
        case '\r' -> json.append("\\r");
        case '\t' -> json.append("\\t");
        default -> {
          if (c < 0x20) {
            json.append(String.format("\\u%04x", (int) c));
          } else {
            json.append(c);
          }
        }
      }
    }
    json.append('"');
  }

  /** A strict parser of {@code {"name":"value",...}}. */
  private static final class Parser {
    private final String text;
    private int at;

    Parser(String text) {
      this.text = text;
    }

    Map<String, String> object() {
      Map<String, String> headers = new LinkedHashMap<>();
      skipSpace();
      expect('{');
      skipSpace();
      if (peek() == '}') {
        at++;
      } else {
        while (true) {
          skipSpace();
          String name = string();
          skipSpace();
          expect(':');
          skipSpace();
          String value = string();
          if (headers.put(name, value) != null) {
            throw new IllegalArgumentException("header '" + name + "' appears twice");
          }
          skipSpace();
          char next = next();
          if (next == '}') {
            break;
          }
          if (next != ',') {
            throw error("',' or '}'");
          }
        }
      }
      skipSpace();
      if (at != text.length()) {
        throw error("the end of the headers");
      }
      return headers;
    }

    private String string() {
      expect('"');
      StringBuilder value = new StringBuilder();
      while (true) {
        char c = next();
        if (c == '"') {
          return value.toString();
        }
        if (c != '\\') {
          value.append(c);
          continue;
        }
        char escaped = next();
        switch (escaped) {
          case '"', '\\', '/' -> value.append(escaped);
          case 'n' -> value.append('\n');
          case 'r' -> value.append('\r');
          case 't' -> value.append('\t');
          case 'b' -> value.append('\b');
          case 'f' -> value.append('\f');
          case 'u' -> {
            if (at + 4 > text.length()) {
              throw error("four hex digits");
            }
            value.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
            at += 4;
          }
          default -> throw error("an escape sequence");
        }
      }
    }

    private void skipSpace() {
      while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
        at++;
      }
    }

    private char peek() {
      if (at >= text.length()) {
        throw error("more");
      }
      return text.charAt(at);
    }

    private char next() {
      char c = peek();
      at++;
      return c;
    }

    private void expect(char c) {
      if (next() != c) {
        throw error("'" + c + "'");
      }
    }

    private IllegalArgumentException error(String expected) {
      return new IllegalArgumentException("not a JSON object of strings: expected " + expected + " at position " + at);
    }
  }
}
