package dev.outboxer.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The inbox guide's examples ({@code docs/guides/inbox.md}) are the example classes of this
 * module's tests ({@code com.example.shipping}), character for character, each a whole {@code
 * ```java} block: this module compiles them, so what a reader copies compiles too.
 */
class InboxDocumentationTest {

  private static final Path GUIDE = Path.of("../docs/guides/inbox.md");
  private static final Path EXAMPLES = Path.of("src/test/java/com/example/shipping");

  @ParameterizedTest
  @ValueSource(strings = {"OrderEventsListener.java", "OrderEventsKafkaLoop.java"})
  void theInboxGuideShowsTheCompiledExampleExactly(String file) throws IOException {
    String example = Files.readString(EXAMPLES.resolve(file)).strip();
    String guide = Files.readString(GUIDE);

    // Not contains(...) on the strings: a failure would print the whole page.
    assertThat(guide.contains("```java\n" + example + "\n```"))
        .as("docs/guides/inbox.md shows %s exactly, as a whole ```java block (the inbox examples)", EXAMPLES.resolve(file))
        .isTrue();
  }
}
