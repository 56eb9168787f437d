package dev.outboxer.spi;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SqlScriptsTest {

  @Test
  void a_statement_ends_at_a_semicolon_at_the_end_of_a_line_or_within_it() {
    assertThat(SqlScripts.statements("CREATE TABLE a (x INT);\nCREATE INDEX a_x ON a (x); DROP TABLE b;"))
        .containsExactly("CREATE TABLE a (x INT)", "CREATE INDEX a_x ON a (x)", "DROP TABLE b");
  }

  @Test
  void the_last_statement_needs_no_semicolon_and_empty_statements_are_left_out() {
    assertThat(SqlScripts.statements(";;\nSELECT 1;\n  ;\nSELECT 2\n")).containsExactly("SELECT 1", "SELECT 2");
    assertThat(SqlScripts.statements("")).isEmpty();
    assertThat(SqlScripts.statements("-- only a comment\n\n/* and another */\n")).isEmpty();
  }

  @Test
  void semicolons_in_literals_and_quoted_identifiers_end_nothing_and_literals_stay_as_written() {
    assertThat(SqlScripts.statements("INSERT INTO t VALUES ('a;b', 'it''s; -- not a comment');\nSELECT 2;"))
        .containsExactly("INSERT INTO t VALUES ('a;b', 'it''s; -- not a comment')", "SELECT 2");
    assertThat(SqlScripts.statements("CREATE TABLE \"odd;name\" (`x;y` INT);SELECT 1"))
        .containsExactly("CREATE TABLE \"odd;name\" (`x;y` INT)", "SELECT 1");
    assertThat(SqlScripts.statements("INSERT INTO t VALUES ('line one;\n\n  line three  \n');"))
        .as("a literal's line breaks, blank lines and blanks are its own")
        .containsExactly("INSERT INTO t VALUES ('line one;\n\n  line three  \n')");
  }

  @Test
  void comments_are_removed_and_a_semicolon_or_quote_in_them_means_nothing() {
    String script = """
        -- Header; with a semicolon and an apostrophe: it's
        CREATE TABLE a (
            -- the key; always set
            id   BIGINT NOT NULL, -- trailing; comment
            /* a block; comment
               over two lines */
            name VARCHAR(10) /* inline; */ NOT NULL
        );

        CREATE INDEX a_name ON a (name);
        """;
    assertThat(SqlScripts.statements(script)).containsExactly("""
        CREATE TABLE a (
            id   BIGINT NOT NULL,
            name VARCHAR(10)   NOT NULL
        )""", "CREATE INDEX a_name ON a (name)");
  }

  @Test
  void windows_line_ends_are_taken_as_line_ends() {
    assertThat(SqlScripts.statements("-- comment\r\nSELECT 1\r\n  FROM t;\r\n"))
        .containsExactly("SELECT 1\n  FROM t");
  }

  @Test
  void a_literal_or_comment_left_open_ends_with_the_script() {
    assertThat(SqlScripts.statements("SELECT 1; SELECT 'open; still open")).containsExactly("SELECT 1",
        "SELECT 'open; still open");
    assertThat(SqlScripts.statements("SELECT 1; /* open; comment")).containsExactly("SELECT 1");
  }
}
