package dev.outboxer.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The test kit's documentation shows {@code com.example.orders.OrderEventsTest} as it is in this
 * module, so that the example compiles and passes as written: the manual's "Testing your
 * application" page, docs/getting-started/testing.md.
 */
class UserDocumentationTest {

  private static final Path EXAMPLE = Path.of("src/test/java/com/example/orders/OrderEventsTest.java");
  private static final List<Path> DOCUMENTS = List.of(Path.of("../docs/getting-started/testing.md"));

  @Test
  void the_documented_example_is_the_example_test_of_this_module() throws IOException {
    String example = Files.readString(EXAMPLE).strip();
    List<Path> showing = DOCUMENTS.stream().filter(Files::exists).filter(document -> read(document).contains(example))
        .toList();

    assertThat(showing).as("a document among " + DOCUMENTS + " that shows " + EXAMPLE + " exactly, in a ```java block")
        .isNotEmpty();
  }

  private static String read(Path document) {
    try {
      return Files.readString(document);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
