package dev.outboxer.local;

import com.arjuna.ats.jta.common.jtaPropertyManager;
import dev.outboxer.OutboxPersistence;
import dev.outboxer.spi.OutboxRecord;
import dev.outboxer.testing.TestDatabase;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Synchronization;
import java.sql.Connection;
import java.sql.PreparedStatement;

/**
 * What the tests' handlers do: check, inside the worker's transaction, that the message's effect is
 * not there yet and that no later message of its group has one (exactly once, in order), write the
 * effect through the outbox's EntityManager, and fail as the {@link HandlerScript} says.
 */
@ApplicationScoped
public class EffectWriter {

  @Inject @OutboxPersistence EntityManager entityManager;
  @Inject HandlerScript script;
  @Inject TransactionalEffects transactional;

  void handle(OutboxRecord record, String group, int seq) throws Exception {
    HandlerScript.Failure failure = script.called(record, group, seq);
    if (failure == HandlerScript.Failure.THROW_THROUGH_TRANSACTIONAL) {
      transactional.writeAndThrow(record, group, seq);
    }
    if (failure == HandlerScript.Failure.SWALLOW_ROLLBACK) {
      try {
        transactional.writeAndThrow(record, group, seq);
      } catch (IllegalStateException expected) {
        return;
      }
    }
    if (failure == HandlerScript.Failure.REFUSED_AT_FLUSH) {
      entityManager.persist(Effect.refused(record.id(), record.outbox(), group, record.partition()));
      return;
    }
    write(record, group, seq);
    if (failure == HandlerScript.Failure.THROW_AFTER_WRITE) {
      throw new Exception("induced failure of " + group + "/" + seq + " after its write");
    }
    if (failure == HandlerScript.Failure.SLOW_AFTER_WRITE) {
      // pg_sleep does not end at Thread.interrupt(): the watchdog's interrupt cannot cut the handler short.
      entityManager.createNativeQuery("SELECT CAST(pg_sleep(" + HandlerScript.SLOW.toMillis() / 1000.0 + ") AS text)")
          .getSingleResult();
    }
    if (failure == HandlerScript.Failure.SLOW_INTO_THE_MARGIN) {
      entityManager.createNativeQuery("SELECT CAST(pg_sleep(" + HandlerScript.NEARLY_TIMED_OUT.toMillis() / 1000.0
          + ") AS text)").getSingleResult();
    }
    if (failure == HandlerScript.Failure.FAIL_COMMIT) {
      registry().registerInterposedSynchronization(new BeforeCommit(() -> {
        throw new IllegalStateException("induced commit failure after " + group + "/" + seq);
      }));
    }
    if (failure == HandlerScript.Failure.KILL_CONNECTION_AT_COMMIT) {
      int pid = ((Number) entityManager.createNativeQuery("SELECT pg_backend_pid()").getSingleResult()).intValue();
      registry().registerInterposedSynchronization(new BeforeCommit(() -> terminate(pid)));
    }
  }

  void write(OutboxRecord record, String group, int seq) {
    Object[] seen = (Object[]) entityManager.createNativeQuery("SELECT COUNT(CASE WHEN message_id = ?1 THEN 1 END),"
        + " COALESCE(MAX(seq), 0) FROM local_effect WHERE outbox = ?2 AND group_key = ?3")
        .setParameter(1, record.id()).setParameter(2, record.outbox()).setParameter(3, group).getSingleResult();
    long mine = ((Number) seen[0]).longValue();
    int highest = ((Number) seen[1]).intValue();
    if (mine != 0 || highest >= seq) {
      script.violation(record.outbox() + "/" + group + "/" + seq + " (message " + record.id() + ") found " + mine
          + " effect(s) of its own and the group's highest applied seq " + highest);
    }
    entityManager.persist(new Effect(record.id(), record.outbox(), group, seq, record.partition(),
        Thread.currentThread().getName()));
    // Into the database now, so that a failure after this leaves a real partial write in the transaction.
    entityManager.flush();
  }

  private static jakarta.transaction.TransactionSynchronizationRegistry registry() {
    return jtaPropertyManager.getJTAEnvironmentBean().getTransactionSynchronizationRegistry();
  }

  private static void terminate(int pid) {
    try (Connection connection = TestDatabase.POSTGRESQL.connect();
        PreparedStatement statement = connection.prepareStatement("SELECT pg_terminate_backend(?)")) {
      statement.setInt(1, pid);
      statement.execute();
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException("could not kill backend " + pid, e);
    }
  }

  private record BeforeCommit(Runnable action) implements Synchronization {
    @Override
    public void beforeCompletion() {
      action.run();
    }

    @Override
    public void afterCompletion(int status) {}
  }
}
