package dev.outboxer.local;

import dev.outboxer.OutboxMessage;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.PayloadCodec;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.inject.Named;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Handler beans for {@link LocalRelayProviderTest}, one outbox per situation. Each handler records
 * the records it got.
 */
final class ValidationBeans {

  private ValidationBeans() {}

  static final List<String> HANDLED = new CopyOnWriteArrayList<>();
  static final AtomicInteger NOTES_DESTROYED = new AtomicInteger();

  // "twice": two handlers for one type.
  @ApplicationScoped @HandlesOutbox(value = "twice", type = "Paid")
  public static class PaidOne implements OutboxHandler {
    @Override public void handle(OutboxRecord record) {}
  }

  @ApplicationScoped @HandlesOutbox(value = "twice", type = "Paid")
  public static class PaidTwo implements OutboxHandler {
    @Override public void handle(OutboxRecord record) {}
  }

  // "everything": one handler for every type by annotation, another named in outbox.everything.local.handler.
  @ApplicationScoped @HandlesOutbox("everything")
  public static class EverythingAnnotated implements OutboxHandler {
    @Override public void handle(OutboxRecord record) {}
  }

  @ApplicationScoped @Named("everythingNamed")
  public static class EverythingNamed implements OutboxHandler {
    @Override public void handle(OutboxRecord record) {}
  }

  // "tpyo": handlers exist only for a misspelt outbox.
  @ApplicationScoped @HandlesOutbox("tpyo")
  public static class Misspelt implements OutboxHandler {
    @Override public void handle(OutboxRecord record) {}
  }

  // "generic": a typed handler without a concrete message class.
  @Dependent @HandlesOutbox("generic")
  public static class GenericHandler<T> implements OutboxMessageHandler<T> {
    @Override public void handle(T message, OutboxRecord record) {}
  }

  // "both": a bean implementing both handler interfaces.
  @ApplicationScoped @HandlesOutbox("both")
  public static class Both implements OutboxHandler, OutboxMessageHandler<Note> {
    @Override public void handle(OutboxRecord record) {}
    @Override public void handle(Note message, OutboxRecord record) {}
  }

  /** A bean with a name that is not a handler. */
  @ApplicationScoped @Named("notAHandler")
  public static class NotAHandler {}

  // "mixed": a handler for every type, one for type Note (decoded by the application's codec), one for "Audit".
  public record Note(String text) implements OutboxMessage {}

  @ApplicationScoped @HandlesOutbox("mixed")
  public static class MixedEverything implements OutboxHandler {
    @Override public void handle(OutboxRecord record) {
      HANDLED.add("every:" + record.type() + ":" + record.id());
    }
  }

  @ApplicationScoped @HandlesOutbox(value = "mixed", type = "Audit")
  public static class MixedAudit implements OutboxHandler {
    @Override public void handle(OutboxRecord record) throws Exception {
      HANDLED.add("audit:" + record.id());
      if (record.payloadText().equals("slow")) {
        Thread.sleep(400);
      }
      if (record.payloadText().equals("fail")) {
        throw new Exception("audit handler refuses " + record.id());
      }
    }
  }

  @Dependent @HandlesOutbox("mixed")
  public static class MixedNotes implements OutboxMessageHandler<Note> {
    @Override public void handle(Note note, OutboxRecord record) {
      HANDLED.add("note:" + note.text() + ":" + record.id());
    }

    @PreDestroy void destroyed() {
      NOTES_DESTROYED.incrementAndGet();
    }
  }

  /** The application's codec: plain text in, a Note out. */
  @ApplicationScoped
  public static class TextCodec implements PayloadCodec {
    @Override public String contentType() {
      return "text/plain";
    }

    @Override public byte[] encode(OutboxMessage message) {
      return ((Note) message).text().getBytes(StandardCharsets.UTF_8);
    }

    @Override public <T> T decode(byte[] payload, Class<T> type) {
      String text = new String(payload, StandardCharsets.UTF_8);
      if (text.isEmpty()) {
        throw new IllegalArgumentException("an empty note");
      }
      return type.cast(new Note(text));
    }
  }
}
