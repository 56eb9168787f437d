package dev.outboxer.it.support;

import dev.outboxer.Outbox;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;

@ApplicationScoped
public class ProbePublisher {

  @Inject
  Outbox outbox;

  @Transactional
  public long publish(String text) {
    return outbox.publish("probe", new ProbeMessage(text));
  }
}
