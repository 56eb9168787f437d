package dev.outboxer.spi;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

/**
 * Describes failures without trusting them. A relay, a codec or an application handler may hand
 * Outboxer any {@link Throwable}: one whose {@code getMessage()} or {@code toString()} throws (an
 * {@code AssertionError}, a {@code NullPointerException}), recurses into a {@code
 * StackOverflowError}, returns megabytes or control characters, or whose causes form a cycle or an
 * endless chain. Outboxer records, logs, traces and shows every such failure through this class,
 * so that describing a failure can never fail the batch, the worker or the request that describes
 * it. Relays and add-ons should do the same wherever they turn a foreign throwable into text.
 *
 * <p>Guarantees: {@link #describe(Throwable)} and {@link #loggable(Throwable)} never throw (not
 * even an {@code Error} raised inside the throwable's own methods), look at no more than {@value
 * #MAX_DEPTH} causes and {@value #MAX_SUPPRESSED} suppressed throwables per level, visit each
 * throwable once (cycles end there), and return text without control characters other than tab
 * and line feed, without unpaired surrogates, and within the length asked for.
 *
 * <p>Not guaranteed: a method of the throwable that never returns (an endless loop in {@code
 * getMessage()}) blocks the caller, as any call would; a description is built from {@code
 * toString()} and may therefore be shortened or replaced where the throwable's own methods fail,
 * which the text then says ("[its description failed: …]").
 */
public final class Failures {

  /** The length of a description by default: the column that keeps a message's last error. */
  public static final int DEFAULT_MAX_LENGTH = 2000;
  /** How many causes below a failure are looked at. */
  public static final int MAX_DEPTH = 10;
  /** How many suppressed throwables of one failure are looked at. */
  public static final int MAX_SUPPRESSED = 5;

  private Failures() {}

  /**
   * The failure and its causes as one line of text, {@code "Type: message <- CauseType: message"},
   * at most {@value #DEFAULT_MAX_LENGTH} characters.
   *
   * @param failure any throwable, or {@code null}
   * @return printable text, never {@code null}, never longer than {@value #DEFAULT_MAX_LENGTH}
   */
  public static String describe(Throwable failure) {
    return describe(failure, DEFAULT_MAX_LENGTH);
  }

  /**
   * The failure and its causes as one line of text, {@code "Type: message <- CauseType: message"},
   * shortened to {@code maxLength} characters (ending in {@code "..."} when shortened).
   *
   * @param failure any throwable, or {@code null}
   * @param maxLength the longest text returned; at least 16
   * @return printable text, never {@code null}
   * @throws IllegalArgumentException if {@code maxLength} is below 16
   */
  public static String describe(Throwable failure, int maxLength) {
    if (maxLength < 16) {
      throw new IllegalArgumentException("maxLength must be at least 16, not " + maxLength);
    }
    if (failure == null) {
      return "null";
    }
    StringBuilder text = new StringBuilder();
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    Throwable current = failure;
    for (int depth = 0; current != null && depth <= MAX_DEPTH && text.length() <= maxLength; depth++) {
      if (!seen.add(current)) {
        text.append(" <- [cycle: ").append(current.getClass().getName()).append(" again]");
        break;
      }
      if (depth > 0) {
        text.append(" <- ");
      }
      text.append(one(current, maxLength + 1));
      current = causeOf(current);
    }
    return printable(text.toString(), maxLength);
  }

  /**
   * The failure's own message, without its class or causes: {@code getMessage()} guarded, made
   * printable and capped at {@value #DEFAULT_MAX_LENGTH} characters.
   *
   * @param failure any throwable, or {@code null}
   * @return the message; {@code null} if the failure is {@code null}, has none, or its message
   *     cannot be read (then {@link #describe(Throwable)} says why)
   */
  public static String message(Throwable failure) {
    if (failure == null) {
      return null;
    }
    try {
      String message = failure.getMessage();
      return message == null ? null : printable(shorten(message, DEFAULT_MAX_LENGTH + 1), DEFAULT_MAX_LENGTH);
    } catch (Throwable unreadable) {
      return null;
    }
  }

  /**
   * A stand-in for the failure that is safe to hand to a logger, a tracer or a caller: its {@code
   * toString()} and {@code getMessage()} return the failure's {@linkplain #describe(Throwable, int)
   * description} of itself alone, its stack trace is the failure's (empty where that cannot be
   * read), its causes and suppressed throwables are stand-ins too, within the bounds of this class.
   * Its class is not the failure's: code that must tell failures apart by class keeps the original
   * and hands only the stand-in on.
   *
   * @param failure any throwable, or {@code null}
   * @return a stand-in, or {@code null} for {@code null}
   */
  public static Throwable loggable(Throwable failure) {
    return failure == null ? null : standIn(failure, 0, Collections.newSetFromMap(new IdentityHashMap<>()));
  }

  private static Throwable standIn(Throwable failure, int depth, Set<Throwable> seen) {
    seen.add(failure);
    Described copy = new Described(printable(one(failure, DEFAULT_MAX_LENGTH + 1), DEFAULT_MAX_LENGTH));
    try {
      StackTraceElement[] trace = failure.getStackTrace();
      copy.setStackTrace(trace == null ? new StackTraceElement[0] : trace.clone());
    } catch (Throwable unreadable) {
      copy.setStackTrace(new StackTraceElement[0]);
    }
    Throwable cause = causeOf(failure);
    if (cause != null && depth < MAX_DEPTH && !seen.contains(cause)) {
      copy.initCause(standIn(cause, depth + 1, seen));
    }
    Throwable[] suppressed = failure.getSuppressed(); // final in Throwable: cannot be overridden
    for (int i = 0; i < suppressed.length && i < MAX_SUPPRESSED && depth < MAX_DEPTH; i++) {
      if (suppressed[i] != null && !seen.contains(suppressed[i])) {
        copy.addSuppressed(standIn(suppressed[i], depth + 1, seen));
      }
    }
    return copy;
  }

  /** {@code toString()}, else the class and {@code getMessage()}, else the class and why neither could be read. */
  private static String one(Throwable failure, int maxLength) {
    String type = failure.getClass().getName(); // getClass is final: it cannot fail
    try {
      String text = failure.toString();
      return text == null ? type : shorten(text, maxLength);
    } catch (Throwable brokenToString) {
      try {
        String message = failure.getMessage();
        return message == null ? type : type + ": " + shorten(message, maxLength);
      } catch (Throwable brokenMessage) {
        return type + " [its description failed: " + brokenMessage.getClass().getName() + "]";
      }
    }
  }

  private static Throwable causeOf(Throwable failure) {
    try {
      return failure.getCause();
    } catch (Throwable broken) {
      return null;
    }
  }

  private static String shorten(String text, int maxLength) {
    return text.length() <= maxLength ? text : text.substring(0, maxLength);
  }

  /**
   * Replaces what a log line or a text column cannot hold (control characters other than tab and
   * line feed, unpaired surrogates, U+FFFE and U+FFFF) and caps the length without splitting a
   * surrogate pair.
   *
   * @param text any text, or {@code null}
   * @param maxLength the longest text returned; at least 16
   * @return printable text, never {@code null}
   */
  public static String printable(String text, int maxLength) {
    if (text == null) {
      return "null";
    }
    StringBuilder clean = new StringBuilder(Math.min(text.length(), maxLength));
    int i = 0;
    for (; i < text.length() && clean.length() < maxLength; i++) {
      char c = text.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < text.length() && Character.isLowSurrogate(text.charAt(i + 1))) {
        if (clean.length() + 2 > maxLength) {
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
    if (i < text.length()) {
      // Shortened: make room for the ellipsis without splitting a surrogate pair.
      int cut = Math.min(clean.length(), maxLength - 3);
      if (cut > 0 && Character.isHighSurrogate(clean.charAt(cut - 1))) {
        cut--;
      }
      clean.setLength(cut);
      clean.append("...");
    }
    return clean.toString();
  }

  /** A throwable that says what another one said of itself, and nothing that can fail. */
  private static final class Described extends Exception {
    private static final long serialVersionUID = 1L;

    Described(String description) {
      super(description);
    }

    @Override
    public String toString() {
      return getMessage();
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
      return this; // the stack trace is the described failure's, set by standIn
    }
  }
}
