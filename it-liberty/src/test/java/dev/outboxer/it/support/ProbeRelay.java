package dev.outboxer.it.support;

import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.spi.Relay;
import dev.outboxer.spi.RelayBatch;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A relay for a test-only outbox ({@code outbox.probe.relay=probe}) that records, per message, the
 * classes on the call stack of the relay call: they show what drives the partition workers.
 */
@Named("probe")
@ApplicationScoped
public class ProbeRelay implements Relay {

  private final Map<Long, List<String>> callers = new ConcurrentHashMap<>();

  @Override
  public void relay(RelayBatch batch) {
    List<String> stack = StackWalker.getInstance().walk(frames -> frames.map(StackWalker.StackFrame::getClassName)
        .distinct().toList());
    for (OutboxRecord record : batch.records()) {
      callers.put(record.id(), stack);
      batch.confirm(record);
    }
  }

  /** The classes on the stack when the message was relayed, or null if it was not. */
  public List<String> callersOf(long id) {
    return callers.get(id);
  }
}
