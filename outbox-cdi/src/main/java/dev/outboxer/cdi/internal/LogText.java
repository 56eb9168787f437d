package dev.outboxer.cdi.internal;

/**
 * Text that applications or operators chose (group keys above all) as it may go into a log line or
 * an exception message: every control character is written as a {@code \\uXXXX} escape, so that a
 * group key with a line break cannot start a forged line in the server log. Printable text,
 * emoji included, is left as it is; nothing is shortened (group keys are at most 255 characters).
 */
public final class LogText {

  private LogText() {}

  /**
   * @param text the text, or null
   * @return the text with C0 and C1 control characters, DEL and the Unicode line and paragraph
   *     separators escaped; {@code "null"} for null
   */
  public static String escaped(String text) {
    if (text == null) {
      return "null";
    }
    StringBuilder shown = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean control = c < 0x20 || c >= 0x7F && c <= 0x9F || c == '\u2028' || c == '\u2029';
      if (control && shown == null) {
        shown = new StringBuilder(text.length() + 16).append(text, 0, i);
      }
      if (control) {
        shown.append(String.format("\\u%04X", (int) c));
      } else if (shown != null) {
        shown.append(c);
      }
    }
    return shown == null ? text : shown.toString();
  }
}
