package dev.outboxer.inbox;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * Prints the inbox's DDL for a database, the script the start-up check names when the inbox tables
 * are missing: {@code java -cp outbox-inbox.jar dev.outboxer.inbox.PrintInboxDdl postgresql} (or
 * {@code mariadb}, {@code h2}, {@code sqlite}). Exits with status 2 and the usage on any other
 * argument. Guarantees the text printed is the script shipped in the jar, byte for byte; it does
 * not connect to any database.
 */
public final class PrintInboxDdl {

  private PrintInboxDdl() {}

  /**
   * @param args one argument: the database, {@code postgresql}, {@code mariadb}, {@code h2} or
   *     {@code sqlite}
   */
  public static void main(String[] args) {
    int status = print(args, System.out, System.err);
    if (status != 0) {
      System.exit(status);
    }
  }

  /** Prints the script to {@code out}, or the usage to {@code err}; returns the exit status. */
  static int print(String[] args, PrintStream out, PrintStream err) {
    Optional<InboxDialect> dialect = args.length == 1 ? dialect(args[0]) : Optional.empty();
    if (dialect.isEmpty()) {
      err.println("usage: java -cp outbox-inbox.jar " + PrintInboxDdl.class.getName() + " <database>, one of "
          + Arrays.stream(InboxDialect.values()).map(InboxDialect::configValue).toList());
      return 2;
    }
    out.print(script(dialect.get()));
    out.flush();
    return 0;
  }

  private static Optional<InboxDialect> dialect(String name) {
    return Arrays.stream(InboxDialect.values())
        .filter(dialect -> dialect.configValue().equals(name.strip().toLowerCase(Locale.ROOT))).findFirst();
  }

  /** The plain DDL script shipped for a database. */
  static String script(InboxDialect dialect) {
    try (InputStream in = PrintInboxDdl.class.getClassLoader().getResourceAsStream(dialect.ddlResource())) {
      if (in == null) {
        throw new IllegalStateException(dialect.ddlResource() + " is missing from outbox-inbox.jar. Indicates a bug.");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
