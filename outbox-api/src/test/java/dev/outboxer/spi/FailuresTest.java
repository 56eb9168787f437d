package dev.outboxer.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.Test;

class FailuresTest {

  @Test
  void a_failure_is_described_with_its_causes_as_one_line() {
    Exception failure = new IllegalStateException("broker refused", new java.io.IOException("connection reset"));

    assertThat(Failures.describe(failure))
        .isEqualTo("java.lang.IllegalStateException: broker refused <- java.io.IOException: connection reset");
  }

  @Test
  void a_failure_whose_to_string_and_message_throw_an_assertion_error_is_described_by_its_class() {
    Exception failure = new Unspeakable(new AssertionError("no"));

    assertThat(Failures.describe(failure))
        .isEqualTo(Unspeakable.class.getName() + " [its description failed: java.lang.AssertionError]");
  }

  @Test
  void a_failure_whose_to_string_throws_but_whose_message_reads_is_described_by_its_message() {
    Exception failure = new IllegalStateException("readable") {
      @Override
      public String toString() {
        throw new AssertionError("toString is broken");
      }
    };

    assertThat(Failures.describe(failure)).endsWith(": readable").startsWith(failure.getClass().getName());
  }

  @Test
  void a_failure_whose_description_recurses_into_a_stack_overflow_is_described_by_its_class() {
    Exception failure = new Recursive();

    assertThat(Failures.describe(failure))
        .isEqualTo(Recursive.class.getName() + " [its description failed: java.lang.StackOverflowError]");
  }

  @Test
  void causes_that_form_a_cycle_are_described_once_each() {
    Cyclic first = new Cyclic("first");
    Cyclic second = new Cyclic("second");
    first.next = second;
    second.next = first;

    assertThat(Failures.describe(first)).isEqualTo(Cyclic.class.getName() + ": first <- " + Cyclic.class.getName()
        + ": second <- [cycle: " + Cyclic.class.getName() + " again]");
  }

  @Test
  void an_endless_chain_of_new_causes_is_cut_after_the_maximum_depth() {
    Exception endless = new Endless(0);

    String text = Failures.describe(endless, 100_000);

    assertThat(text.split(" <- ")).hasSize(Failures.MAX_DEPTH + 1);
  }

  @Test
  void a_cause_that_throws_ends_the_description_there() {
    Exception failure = new IllegalStateException("top") {
      @Override
      public synchronized Throwable getCause() {
        throw new StackOverflowError();
      }
    };

    assertThat(Failures.describe(failure)).endsWith(": top");
  }

  @Test
  void megabytes_of_text_with_control_characters_are_capped_and_made_printable() {
    Exception failure = new IllegalStateException("\u0000\uD800\r" + "no ".repeat(2_000_000));

    String text = Failures.describe(failure);

    assertThat(text).hasSize(Failures.DEFAULT_MAX_LENGTH).endsWith("...").doesNotContain("\u0000", "\r", "\uD800");
  }

  @Test
  void a_null_message_or_to_string_falls_back_to_the_class() {
    Exception failure = new IllegalStateException() {
      @Override
      public String toString() {
        return null;
      }
    };

    assertThat(Failures.describe(failure)).isEqualTo(failure.getClass().getName());
    assertThat(Failures.describe(null)).isEqualTo("null");
  }

  @Test
  void a_surrogate_pair_is_never_split_when_text_is_capped() {
    String text = Failures.printable("a".repeat(14) + "\uD83D\uDE00\uD83D\uDE00", 16);

    assertThat(text).isEqualTo("a".repeat(13) + "...");
    assertThat(Failures.printable("a".repeat(13) + "\uD83D\uDE00" + "bbb", 16)).isEqualTo("a".repeat(13) + "...");
  }

  @Test
  void the_message_alone_is_read_guarded() {
    assertThat(Failures.message(new IllegalStateException("broker \u0000 down"))).isEqualTo("broker \uFFFD down");
    assertThat(Failures.message(new Unspeakable(new AssertionError()))).isNull();
    assertThat(Failures.message(new Recursive())).isNull();
    assertThat(Failures.message(new IllegalStateException())).isNull();
    assertThat(Failures.message(null)).isNull();
  }

  @Test
  void a_length_below_16_is_refused() {
    assertThatThrownBy(() -> Failures.describe(new Exception(), 15)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("15");
  }

  @Test
  void the_stand_in_of_an_unspeakable_failure_can_be_logged_with_its_stack_trace_and_causes() {
    Unspeakable failure = new Unspeakable(new AssertionError("no"));
    failure.initCause(new Recursive());
    failure.addSuppressed(new IllegalArgumentException("also this"));

    Throwable standIn = Failures.loggable(failure);
    LogRecord record = new LogRecord(Level.WARNING, "the relay threw");
    record.setThrown(standIn);
    String logged = new SimpleFormatter().format(record);

    assertThat(logged).contains(Unspeakable.class.getName() + " [its description failed: java.lang.AssertionError]")
        .contains("Caused by: " + Recursive.class.getName() + " [its description failed: java.lang.StackOverflowError]")
        .contains("Suppressed: java.lang.IllegalArgumentException: also this")
        .contains("at " + FailuresTest.class.getName());
    assertThat(standIn.getStackTrace()).isEqualTo(failure.getStackTrace());
  }

  @Test
  void the_stand_in_of_a_failure_whose_stack_trace_cannot_be_read_has_none() {
    Exception failure = new IllegalStateException("x") {
      @Override
      public StackTraceElement[] getStackTrace() {
        throw new AssertionError();
      }
    };

    Throwable standIn = Failures.loggable(failure);
    StringWriter printed = new StringWriter();
    standIn.printStackTrace(new PrintWriter(printed));

    assertThat(standIn.getStackTrace()).isEmpty();
    assertThat(printed.toString()).startsWith(failure.getClass().getName() + ": x");
  }

  @Test
  void the_stand_in_of_cyclic_causes_ends_at_the_cycle() {
    Cyclic first = new Cyclic("first");
    Cyclic second = new Cyclic("second");
    first.next = second;
    second.next = first;

    Throwable standIn = Failures.loggable(first);

    assertThat(standIn.getCause().getMessage()).endsWith("second");
    assertThat(standIn.getCause().getCause()).isNull();
    assertThat(Failures.loggable(null)).isNull();
  }

  /** Every way to describe it fails. */
  static final class Unspeakable extends RuntimeException {
    private final Error error;

    Unspeakable(Error error) {
      this.error = error;
    }

    @Override
    public String getMessage() {
      throw error;
    }

    @Override
    public String toString() {
      throw error;
    }
  }

  /** Its description calls itself. */
  static final class Recursive extends RuntimeException {
    @Override
    public String getMessage() {
      return "again: " + this;
    }
  }

  static final class Cyclic extends RuntimeException {
    Cyclic next;

    Cyclic(String message) {
      super(message);
    }

    @Override
    public synchronized Throwable getCause() {
      return next;
    }
  }

  /** A new cause every time it is asked. */
  static final class Endless extends RuntimeException {
    private final int level;

    Endless(int level) {
      super("level " + level);
      this.level = level;
    }

    @Override
    public synchronized Throwable getCause() {
      return new Endless(level + 1);
    }
  }
}
