package dev.outboxer.admin;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * The JSON answer of a call that failed: what went wrong and, where there is one, how to fix it.
 * Every refusal of the API is one, the server's own included (unknown path 404, wrong method 405,
 * unexpected failure 500).
 *
 * @param status the HTTP status
 * @param error what went wrong
 */
public record Problem(int status, String error) {

  /** A refusal to throw: the status with this problem as its JSON body. */
  static WebApplicationException refusal(Response.Status status, String error) {
    return new WebApplicationException(answer(status.getStatusCode(), error).build());
  }

  static Response.ResponseBuilder answer(int status, String error) {
    return Response.status(status).type(MediaType.APPLICATION_JSON_TYPE).entity(new Problem(status, error));
  }

  /**
   * Text from a request as it can be put into an error: control characters and unpaired
   * surrogates escaped, at most 80 characters, so that hostile input neither forges log lines nor
   * makes an answer large.
   */
  static String printable(String text) {
    StringBuilder shown = new StringBuilder();
    int i = 0;
    for (; i < text.length() && shown.length() < 80; i++) {
      char c = text.charAt(i);
      if (c < 0x20 || c == 0x7F || Character.isSurrogate(c) && !pairedAt(text, i)) {
        shown.append(String.format("\\u%04X", (int) c));
      } else if (Character.isHighSurrogate(c)) {
        shown.append(c).append(text.charAt(++i));
      } else {
        shown.append(c);
      }
    }
    return i < text.length() ? shown + "... (" + text.length() + " characters)" : shown.toString();
  }

  private static boolean pairedAt(String text, int i) {
    return Character.isHighSurrogate(text.charAt(i)) && i + 1 < text.length()
        && Character.isLowSurrogate(text.charAt(i + 1));
  }
}
