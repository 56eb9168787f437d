package dev.outboxer.cdi.internal.work;

/**
 * Turns a relay's failure into the text stored as a message's last error: the exception and its
 * causes, with characters no database column takes (NUL, other control characters, unpaired
 * surrogates) replaced, and shortened to the column's 2,000 characters. Recording a failure must
 * never fail the batch that records it.
 */
final class FailureText {

  static final int MAX_LENGTH = 2000;

  private FailureText() {}

  static String describe(Throwable cause) {
    StringBuilder text = new StringBuilder();
    try {
      text.append(cause);
      int depth = 0;
      for (Throwable inner = cause.getCause(); inner != null && inner != cause && depth < 10;
          inner = inner.getCause(), depth++) {
        text.append(" <- ").append(inner);
        if (text.length() > MAX_LENGTH * 2) {
          break;
        }
      }
    } catch (RuntimeException | LinkageError brokenToString) {
      // An exception whose toString or getMessage throws: keep what we have and say so.
      text.append(" [the failure could not be described: ").append(brokenToString.getClass().getName()).append(']');
    }
    return sanitize(text.toString());
  }

  /** Replaces what a text column cannot hold and caps the length without splitting a surrogate pair. */
  static String sanitize(String text) {
    StringBuilder clean = new StringBuilder(Math.min(text.length(), MAX_LENGTH));
    for (int i = 0; i < text.length() && clean.length() < MAX_LENGTH; i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        if (clean.length() + 2 > MAX_LENGTH) {
          break;
        }
        clean.append(c).append(text.charAt(++i));
      } else if (Character.isSurrogate(c) || c == '\uFFFE' || c == '\uFFFF') {
        clean.append('\uFFFD');
      } else if (c < 0x20 && c != '\n' && c != '\t' || c == 0x7F) {
        clean.append(c == '\r' ? ' ' : '\uFFFD');
      } else {
        clean.append(c);
      }
    }
    if (clean.length() >= MAX_LENGTH && text.length() > clean.length()) {
      int cut = MAX_LENGTH - 3;
      if (Character.isLowSurrogate(clean.charAt(cut))) {
        cut--;
      }
      clean.setLength(cut);
      clean.append("...");
    }
    return clean.toString();
  }
}
