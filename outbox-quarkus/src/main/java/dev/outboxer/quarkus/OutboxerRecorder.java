package dev.outboxer.quarkus;

import io.quarkus.runtime.annotations.Recorder;
import java.util.List;
import java.util.function.Supplier;

/** Carries what the build found (the {@code @Outboxed} types) into the running application. */
@Recorder
public class OutboxerRecorder {

  /** The supplier of the synthetic {@link OutboxedTypes} bean. */
  public Supplier<OutboxedTypes> outboxedTypes(List<String> classNames) {
    return () -> new OutboxedTypes(classNames);
  }
}
