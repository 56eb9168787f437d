package dev.outboxer.quarkus;

import dev.outboxer.inbox.InboxUsage;
import io.quarkus.runtime.annotations.Recorder;
import java.util.function.Supplier;

/**
 * Carries what the build found about the inbox (outbox-inbox) into the running application: whether
 * any bean injects it. The build calls it only when the application has outbox-inbox, which this
 * module depends on optionally; so that the recorder itself loads without it, no signature of its
 * methods names an inbox class (only {@link NotedUsage}'s body does).
 */
@Recorder
public class InboxRecorder {

  /** The supplier of the synthetic {@code InboxUsage} bean: the answer ArC's missing portable extension would give. */
  public Supplier<?> inboxUsage(boolean injected) {
    return new NotedUsage(injected);
  }

  /** Makes the {@link InboxUsage} at run time. */
  private static final class NotedUsage implements Supplier<Object> {

    private final boolean injected;

    NotedUsage(boolean injected) {
      this.injected = injected;
    }

    @Override
    public Object get() {
      return InboxUsage.noted(injected);
    }
  }
}
