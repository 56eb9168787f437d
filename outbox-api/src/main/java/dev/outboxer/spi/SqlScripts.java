package dev.outboxer.spi;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits an SQL script into the statements to hand to JDBC one by one, as Outboxer's DDL scripts
 * ({@code META-INF/outboxer/ddl/<database>.sql}, the inbox's scripts) are written. One splitter
 * for everything that runs such a script: the core's schema creation, the test kit, the chaos
 * suite and the sample application, so that a script that one of them runs, all of them run.
 *
 * <p>Guarantees of {@link #statements(String)}:
 *
 * <ul>
 *   <li>A statement ends at a semicolon outside literals and comments, anywhere on a line (two
 *       statements on one line are two statements); the last statement needs no semicolon.
 *   <li>Semicolons inside single-quoted string literals ({@code 'a;b'}, with {@code ''} for a
 *       quote), double-quoted identifiers ({@code "a;b"}) and MariaDB's back-quoted identifiers
 *       ({@code `a;b`}) do not end a statement; literals are passed on unchanged.
 *   <li>Comments are removed: {@code --} to the end of the line and {@code /* ... *}{@code /}
 *       (not nested); a semicolon or quote in a comment means nothing.
 *   <li>Outside literals, lines left blank (in the script, or by a removed comment) are dropped
 *       and the trailing blanks of a line removed; the other line breaks and the indentation
 *       inside a statement are kept.
 *   <li>Each statement is returned without its semicolon and without leading or trailing
 *       whitespace; an empty statement (a comment alone, {@code ;;}) is left out.
 * </ul>
 *
 * <p>Not understood, so do not use them in a script this class runs: PostgreSQL's dollar quoting
 * ({@code $$ ... $$}, as in a function body) and procedural blocks ({@code BEGIN ... END;} of a
 * trigger) whose inner semicolons would end the statement early; backslash escapes in literals
 * ({@code 'it\'s'}, which MariaDB accepts by default; write {@code 'it''s'}); MariaDB's {@code #}
 * comments and client commands such as {@code DELIMITER}. A literal, identifier or block comment
 * left open at the end of the script is taken to end there.
 */
public final class SqlScripts {

  private SqlScripts() {}

  /** The statements of a script, in order, by the rules in the class description. */
  public static List<String> statements(String script) {
    List<String> statements = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    int length = script.length();
    int i = 0;
    while (i < length) {
      char c = script.charAt(i);
      if (c == '\'' || c == '"' || c == '`') {
        int end = endOfQuoted(script, i, c);
        current.append(script, i, end);
        i = end;
      } else if (c == '-' && i + 1 < length && script.charAt(i + 1) == '-') {
        // The line break stays: it separates what came before the comment from the next line.
        int end = script.indexOf('\n', i);
        i = end < 0 ? length : end;
      } else if (c == '/' && i + 1 < length && script.charAt(i + 1) == '*') {
        int end = script.indexOf("*/", i + 2);
        i = end < 0 ? length : end + 2;
        current.append(' ');
      } else if (c == ';') {
        add(statements, current);
        i++;
      } else if (c == '\n') {
        endLine(current);
        i++;
      } else {
        current.append(c);
        i++;
      }
    }
    add(statements, current);
    return statements;
  }

  /** The index just after the quote that closes the one at {@code start}; a doubled quote stays inside. */
  private static int endOfQuoted(String script, int start, char quote) {
    int i = start + 1;
    while (i < script.length()) {
      if (script.charAt(i) == quote) {
        if (i + 1 < script.length() && script.charAt(i + 1) == quote) {
          i += 2;
          continue;
        }
        return i + 1;
      }
      i++;
    }
    return script.length();
  }

  /**
   * Ends a line outside literals: its trailing blanks go, and a line with nothing left (blank, or
   * only a comment that was removed) is dropped, as the comment lines of a script are not part of
   * its statements. A literal's own line breaks never come here, so its text stays as written.
   */
  private static void endLine(StringBuilder current) {
    int end = current.length();
    while (end > 0 && (current.charAt(end - 1) == ' ' || current.charAt(end - 1) == '\t'
        || current.charAt(end - 1) == '\r')) {
      end--;
    }
    current.setLength(end);
    int lineStart = current.lastIndexOf("\n") + 1;
    if (lineStart == current.length()) {
      return;
    }
    current.append('\n');
  }

  private static void add(List<String> statements, StringBuilder current) {
    String statement = current.toString().strip();
    if (!statement.isEmpty()) {
      statements.add(statement);
    }
    current.setLength(0);
  }
}
