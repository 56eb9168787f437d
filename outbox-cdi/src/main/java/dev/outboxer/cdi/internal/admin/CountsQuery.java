package dev.outboxer.cdi.internal.admin;

import dev.outboxer.OutboxCounts;
import dev.outboxer.cdi.internal.cdi.TimeSource;
import dev.outboxer.cdi.internal.store.MessageStatus;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.List;

/** Counts an outbox's messages in one grouped query over its index. */
@ApplicationScoped
public class CountsQuery {

  @Inject TimeSource time;

  public OutboxCounts counts(EntityManager em, String outbox) {
    List<Object[]> rows = em.createQuery("SELECT m.status, COUNT(m), SUM(CASE WHEN m.attempts > 0 THEN 1 ELSE 0 END),"
            + " MIN(m.createdAt) FROM OutboxMessageEntity m WHERE m.outbox = :outbox GROUP BY m.status", Object[].class)
        .setParameter("outbox", outbox)
        .getResultList();
    long pending = 0;
    long retrying = 0;
    long dead = 0;
    Duration oldestPendingAge = Duration.ZERO;
    for (Object[] row : rows) {
      long count = ((Number) row[1]).longValue();
      if (MessageStatus.PENDING.name().equals(row[0])) {
        pending = count;
        retrying = row[2] == null ? 0 : ((Number) row[2]).longValue();
        LocalDateTime oldest = (LocalDateTime) row[3];
        if (oldest != null) {
          Duration age = Duration.between(oldest, time.nowUtc());
          oldestPendingAge = age.isNegative() ? Duration.ZERO : age;
        }
      } else {
        dead = count;
      }
    }
    return new OutboxCounts(pending, retrying, dead, oldestPendingAge);
  }
}
