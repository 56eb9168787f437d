package dev.outboxer.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The README's inbox examples are the example classes of this module's tests ({@code
 * com.example.shipping}), character for character, each a whole {@code ```java} block: this module
 * compiles them, so what a reader copies compiles too.
 */
class InboxDocumentationTest {

  private static final Path README = Path.of("../README.md");
  private static final Path EXAMPLES = Path.of("src/test/java/com/example/shipping");

  @ParameterizedTest
  @ValueSource(strings = {"OrderEventsListener.java", "OrderEventsKafkaLoop.java"})
  void theReadmeShowsTheCompiledExampleExactly(String file) throws IOException {
    String example = Files.readString(EXAMPLES.resolve(file)).strip();
    String readme = Files.readString(README);

    // Not contains(...) on the strings: a failure would print the whole README.
    assertThat(readme.contains("```java\n" + example + "\n```"))
        .as("README.md shows %s exactly, as a whole ```java block (the inbox examples)", EXAMPLES.resolve(file))
        .isTrue();
  }
}
