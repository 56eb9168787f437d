package dev.outboxer.local;

import dev.outboxer.spi.OutboxRecord;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

/** A {@code @Transactional} bean, as applications have them: its RuntimeException marks the caller's transaction. */
@ApplicationScoped
public class TransactionalEffects {

  @Inject EffectWriter writer;

  @Transactional
  public void writeAndThrow(OutboxRecord record, String group, int seq) {
    writer.write(record, group, seq);
    throw new IllegalStateException("induced failure of " + group + "/" + seq + " through a @Transactional bean");
  }
}
