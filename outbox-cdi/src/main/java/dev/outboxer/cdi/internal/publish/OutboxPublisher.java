package dev.outboxer.cdi.internal.publish;

import dev.outboxer.InvalidOutboxMessageException;
import dev.outboxer.Outbox;
import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.OutboxException;
import dev.outboxer.OutboxMessage;
import dev.outboxer.OutboxTransactionRequiredException;
import dev.outboxer.Outboxed;
import dev.outboxer.UnknownOutboxException;
import dev.outboxer.cdi.internal.LogText;
import dev.outboxer.cdi.internal.cdi.EntityManagerLookup;
import dev.outboxer.cdi.internal.cdi.TimeSource;
import dev.outboxer.cdi.internal.config.OutboxConfiguration;
import dev.outboxer.cdi.internal.config.OutboxSettings;
import dev.outboxer.cdi.internal.jdbc.Jdbc;
import dev.outboxer.cdi.internal.jdbc.Sql;
import dev.outboxer.cdi.internal.metrics.OutboxMetrics;
import dev.outboxer.cdi.internal.store.GroupHash;
import dev.outboxer.cdi.internal.store.PublishStatements;
import dev.outboxer.cdi.internal.tx.Transactions;
import dev.outboxer.cdi.internal.work.CrossNodeWakeUp;
import dev.outboxer.cdi.internal.work.Workers;
import dev.outboxer.spi.PayloadCodec;
import dev.outboxer.spi.PublishInterceptor;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.ContextNotActiveException;
import jakarta.inject.Inject;
import jakarta.transaction.Status;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@link Outbox} bean: checks the message, then writes its row in one statement on the
 * connection of the caller's JTA transaction (through the application's EntityManager).
 */
@ApplicationScoped
public class OutboxPublisher implements Outbox {

  private final Map<Class<?>, String> typeNames = new ConcurrentHashMap<>();

  @Inject OutboxConfiguration configuration;
  @Inject Transactions transactions;
  @Inject EntityManagerLookup entityManagers;
  @Inject Jdbc jdbc;
  @Inject PublishStatements statements;
  @Inject Codecs codecs;
  @Inject MessageLimits limits;
  @Inject TimeSource time;
  @Inject Workers workers;
  @Inject OutboxMetrics metrics;
  @Inject CrossNodeWakeUp wakeUp;
  @Inject @jakarta.enterprise.inject.Any jakarta.enterprise.inject.Instance<PublishInterceptor> interceptorBeans;

  private volatile java.util.List<PublishInterceptor> interceptors;

  /** Around the commit of a publishing transaction: prime idle workers, then count and wake. */
  private final AfterCommit.Hooks commitHooks = new AfterCommit.Hooks() {
    @Override
    public AfterCommit.Completion beforeCommit(Map.Entry<String, Integer> partition) {
      dev.outboxer.cdi.internal.work.CommitGate gate = workers.prime(partition.getKey(), partition.getValue());
      return gate == null ? null : committed -> gate.completed();
    }

    @Override
    public void committed(Map.Entry<String, Integer> partition, int count, boolean primed) {
      metrics.published(partition.getKey(), count);
      if (!primed) {
        workers.wake(partition.getKey(), partition.getValue());
      }
      wakeUp.published(partition.getKey(), partition.getValue());
    }
  };

  @Override
  public long publish(OutboxMessage message) {
    if (message == null) {
      throw new InvalidOutboxMessageException("message", "publish(message) was given null: there is nothing to"
          + " publish. Nothing was written.");
    }
    Outboxed outboxed = message.getClass().getAnnotation(Outboxed.class);
    if (outboxed == null) {
      throw new UnknownOutboxException("Message type " + message.getClass().getName() + " has no @Outboxed annotation:"
          + " annotate it with @Outboxed(\"<outbox>\") or call publish(outbox, message)");
    }
    return publish(outboxed.value(), message);
  }

  @Override
  public long publish(String outbox, OutboxMessage message) {
    OutboxSettings settings = configuration.require(outbox);
    if (message == null) {
      throw MessageChecks.invalid(outbox, "message", "publish was given a null message");
    }
    requireTransaction(outbox);
    String type = typeName(outbox, message.getClass());
    MessageLimits.Limits outboxLimits = limits.of(outbox);
    String groupKey = MessageChecks.groupKey(outbox, message.groupKey());
    java.time.LocalDateTime notBefore = MessageChecks.notBefore(outbox, message.notBefore(), time.now(),
        settings.maxDelay(), settings.key(dev.outboxer.spi.CoreSettings.MAX_DELAY));
    Map<String, String> headers = withInterceptorHeaders(outbox, message);
    MessageChecks.headers(outbox, headers, outboxLimits.constraints());
    byte[] payload = encode(outbox, message, outboxLimits);
    String refused = outboxLimits.constraints().checkMessage(type, groupKey, codecs.payloadCodec().contentType(),
        payload, headers);
    if (refused != null) {
      throw MessageChecks.invalid(outbox, "message", "the message " + refused);
    }

    PublishStatements.Inserted inserted = null;
    try {
      // Through a JTA data source the connection is the transaction's by construction; through an
      // EntityManager it is only if the EntityManager joined the transaction.
      if (!jdbc.viaDataSource() && !entityManagers.entityManager().isJoinedToTransaction()) {
        throw new OutboxException("Outbox '" + outbox + "': the EntityManager Outboxer uses is not joined to the"
            + " active JTA transaction, so the message would not commit with it. Produce a container-managed (or"
            + " @TransactionScoped) EntityManager with @OutboxPersistence. Nothing was written.");
      }
      int partitionKey = groupKey == null ? GroupHash.partitionKeyOfUngrouped() : GroupHash.partitionKey(groupKey);
      PublishStatements.NewMessage row = new PublishStatements.NewMessage(outbox, partitionKey, groupKey, type,
          codecs.payloadCodec().contentType(), payload, codecs.encodeHeaders(headers), time.nowUtc(),
          notBefore);
      try {
        inserted = jdbc.call(connection -> statements.insert(connection, row, settings.serializeWrites()));
      } catch (SQLException e) {
        int status = transactions.statusOrUnknown();
        if (!Sql.isDeadlock(e) && status != Status.STATUS_ACTIVE && status != Status.STATUS_MARKED_ROLLBACK) {
          // The connection was closed under the statement by the rollback of the transaction.
          throw transactionEnded(outbox, status, e);
        }
        throw writeFailed(outbox, groupKey, e);
      }
      AfterCommit.record(transactions.registry(), outbox, inserted.partition(), commitHooks);
      return inserted.id();
    } catch (OutboxException e) {
      throw e;
    } catch (RuntimeException e) {
      // No raw container exception leaves publish: the transaction manager may have rolled the
      // transaction back under it (its timeout, from the reaper thread), and then the transaction-scoped
      // EntityManager's context is gone (WELD-001303) or the connection closed.
      throw failedWhileWriting(outbox, e, inserted != null);
    }
  }

  /** Something other than the database's refusal failed while the message was being written. */
  private OutboxException failedWhileWriting(String outbox, RuntimeException failure, boolean written) {
    int status = transactions.statusOrUnknown();
    // Ended: no longer active, or marked for rollback and its transaction-scoped context already gone
    // (the reaper marks a transaction it cannot roll back at once). A context missing from a transaction
    // that is still active is a deployment problem, not an ended transaction: described as it is below.
    if (status != Status.STATUS_ACTIVE && (status != Status.STATUS_MARKED_ROLLBACK
        || failure instanceof ContextNotActiveException)) {
      return transactionEnded(outbox, status, failure);
    }
    String outcome;
    if (written) {
      // The row is in the transaction: it must not commit after publish failed.
      try {
        transactions.registry().setRollbackOnly();
        outcome = "The row may have been written, so the transaction is marked for rollback.";
      } catch (RuntimeException e) {
        failure.addSuppressed(e);
        outcome = "The row may have been written, and marking the transaction for rollback failed: roll it back.";
      }
    } else {
      outcome = "Nothing was written.";
    }
    return new OutboxException("Outbox '" + outbox + "': writing the message failed (" + describe(failure) + "). "
        + outcome, failure);
  }

  /** The transaction ended (was rolled back) while publish was writing the message. */
  private OutboxTransactionRequiredException transactionEnded(String outbox, int status, Throwable failure) {
    OutboxTransactionRequiredException ended = new OutboxTransactionRequiredException(outbox, "Outbox '" + outbox
        + "': the caller's JTA transaction ended while publish was writing the message: it was rolled back ("
        + Transactions.statusName(status) + "), for example by " + timeoutText() + " (" + describe(failure) + ")."
        + " Nothing was written, and the business work of the transaction is rolled back too: run it again in a new"
        + " transaction" + (status == Status.STATUS_ROLLEDBACK || status == Status.STATUS_ROLLING_BACK ? ", with a"
        + " longer timeout if it was the timeout." : "."));
    ended.initCause(failure);
    return ended;
  }

  /** "the transaction timeout of 30 s", or without the number if the transaction manager cannot tell. */
  private String timeoutText() {
    int seconds = transactions.timeoutSeconds();
    return seconds > 0 ? "the transaction timeout of " + seconds + " s" : "its transaction timeout";
  }

  /** The message's headers plus what the interceptors add; the message's own win. */
  private Map<String, String> withInterceptorHeaders(String outbox, OutboxMessage message) {
    Map<String, String> own = message.headers();
    java.util.List<PublishInterceptor> all = interceptors;
    if (all == null) {
      java.util.List<PublishInterceptor> found = new java.util.ArrayList<>();
      interceptorBeans.forEach(found::add);
      all = java.util.List.copyOf(found);
      interceptors = all;
    }
    if (all.isEmpty() || own == null) {
      return own;
    }
    Map<String, String> merged = new java.util.HashMap<>();
    for (PublishInterceptor interceptor : all) {
      Map<String, String> added = interceptor.headers(outbox, message);
      if (added != null) {
        merged.putAll(added);
      }
    }
    merged.putAll(own);
    return merged;
  }

  private void requireTransaction(String outbox) {
    int status = transactions.status();
    if (status == Status.STATUS_ACTIVE) {
      return;
    }
    if (status == Status.STATUS_MARKED_ROLLBACK) {
      throw new OutboxTransactionRequiredException(outbox, "Outbox '" + outbox + "': the caller's JTA transaction is"
          + " marked for rollback (an earlier failure in it, setRollbackOnly, or the transaction manager when "
          + timeoutText() + " passed), so the message could never be committed. Nothing was written. Publish in a"
          + " transaction that can still commit.");
    }
    if (status == Status.STATUS_ROLLEDBACK || status == Status.STATUS_ROLLING_BACK) {
      // Narayana leaves a transaction its reaper rolled back (the timeout) associated with the thread.
      throw new OutboxTransactionRequiredException(outbox, "Outbox '" + outbox + "': the caller's JTA transaction is"
          + " no longer active: it was rolled back (" + Transactions.statusName(status) + "), for example by "
          + timeoutText() + ", and the business work done in it is rolled back too. Nothing was written. Run the"
          + " work again in a new transaction, with a longer timeout if it was the timeout.");
    }
    if (status != Status.STATUS_NO_TRANSACTION) {
      throw new OutboxTransactionRequiredException(outbox, "Outbox '" + outbox + "': the caller's JTA transaction is"
          + " no longer active (" + Transactions.statusName(status) + "): it is completing or has completed, so a"
          + " message written now would not be part of it. Nothing was written. Publish inside the business"
          + " transaction, before its commit.");
    }
    throw new OutboxTransactionRequiredException(outbox, "Outbox '" + outbox + "': publish needs an active JTA"
        + " transaction, so that the message commits or rolls back with the business data; none is active."
        + " Publish from an EJB business method, a @Transactional CDI method or between UserTransaction.begin() and"
        + " commit(). Nothing was written.");
  }

  private byte[] encode(String outbox, OutboxMessage message, MessageLimits.Limits outboxLimits) {
    PayloadCodec codec = codecs.payloadCodec();
    byte[] payload;
    try {
      payload = codec.encode(message);
    } catch (UnseenState.Dropped dropped) {
      throw MessageChecks.invalid(outbox, dropped.path(), dropped.getMessage());
    } catch (Exception | StackOverflowError | LinkageError e) {
      // Whatever the codec throws: a checked exception thrown sneakily, a class it could not load or
      // initialise, the stack overflow of a payload nested too deeply (the stack has unwound to this
      // frame by now, so there is room again). None of them may leave publish raw: an Error would be a
      // system exception that makes an EJB container roll back the caller's whole transaction.
      throw cannotEncode(outbox, codec, message, e);
    }
    if (payload == null) {
      throw MessageChecks.invalid(outbox, "payload", "the payload codec " + codec.getClass().getName()
          + " returned null for the " + message.getClass().getName());
    }
    if (payload.length > outboxLimits.maxPayloadBytes()) {
      throw MessageChecks.invalid(outbox, "payload", "the encoded payload is " + payload.length + " bytes; the limit"
          + " is " + outboxLimits.maxPayloadBytes() + " bytes (" + outboxLimits.payloadLimitSource() + ")");
    }
    return payload;
  }

  /** The codec failed: the message names the payload, the codec and why; nothing was written. */
  static InvalidOutboxMessageException cannotEncode(String outbox, PayloadCodec codec, OutboxMessage message,
      Throwable failure) {
    String codecName = codec instanceof JsonbPayloadCodec ? "the JSON-B codec" : "the payload codec " + className(codec);
    String problem = failure instanceof StackOverflowError
        ? "the payload of the " + message.getClass().getName() + " is nested too deeply for " + codecName
            + " (StackOverflowError): make it flatter (a list instead of a chain of objects, for example), or encode"
            + " it with a PayloadCodec of your own"
        : codecName + " could not encode the " + message.getClass().getName() + " (" + describe(failure) + ")";
    return new InvalidOutboxMessageException("payload", "Outbox '" + outbox + "': " + problem + ". Nothing was"
        + " written.", failure);
  }

  /** A bean's class, without the CDI container's client proxy suffix. */
  private static String className(Object bean) {
    String name = bean.getClass().getName();
    int proxy = name.indexOf("$Proxy$");
    return proxy > 0 ? name.substring(0, proxy) : name;
  }

  /**
   * The failure's class and message, also when its {@code getMessage} or {@code toString} throws.
   * (To be replaced by the shared {@code dev.outboxer.spi.Failures.describe}.)
   */
  private static String describe(Throwable failure) {
    try {
      return String.valueOf(failure);
    } catch (Throwable unreadable) {
      return failure.getClass().getName() + " [its message could not be read: " + unreadable.getClass().getName()
          + "]";
    }
  }

  /**
   * The database refused the statement: the caller's transaction can usually no longer commit (on
   * PostgreSQL any failed statement dooms it; on MariaDB a deadlock rolls it back).
   */
  private static OutboxException writeFailed(String outbox, String groupKey, SQLException e) {
    if (Sql.isDeadlock(e)) {
      return new OutboxException("Outbox '" + outbox + "': the database broke a deadlock by rolling back this"
          + " transaction while it wrote a message" + (groupKey == null ? "" : " of group '" + LogText.escaped(groupKey) + "'")
          + " (" + e.getMessage() + "). Nothing of the transaction is committed: run it again.", e);
    }
    return new OutboxException("Outbox '" + outbox + "': the database refused the message row (" + e.getMessage()
        + "). The message was not written; the transaction is probably marked for rollback.", e);
  }

  private String typeName(String outbox, Class<?> messageClass) {
    String name = typeNames.get(messageClass);
    if (name != null) {
      return name;
    }
    Outboxed outboxed = messageClass.getAnnotation(Outboxed.class);
    name = outboxed == null || outboxed.type().isBlank() ? messageClass.getSimpleName() : outboxed.type();
    if (name.isEmpty()) {
      throw MessageChecks.invalid(outbox, "type", "the message class " + messageClass.getName() + " has no simple"
          + " name (an anonymous class?): name its type with @Outboxed(type = \"...\")");
    }
    MessageChecks.text(outbox, "type", "the message type", name);
    int length = name.codePointCount(0, name.length());
    if (length > MessageChecks.MAX_TYPE_LENGTH) {
      throw MessageChecks.invalid(outbox, "type", "the message type of " + messageClass.getName() + " is " + length
          + " characters long; the limit is " + MessageChecks.MAX_TYPE_LENGTH + ": set a shorter @Outboxed(type)");
    }
    typeNames.put(messageClass, name);
    return name;
  }

  /** Checks the codec's content type at start-up: a bad one would fail every publish. */
  public void checkCodec() {
    PayloadCodec codec = codecs.payloadCodec();
    String contentType = codec.contentType();
    if (contentType == null || contentType.isBlank() || contentType.length() > MessageChecks.MAX_CONTENT_TYPE_LENGTH
        || contentType.chars().anyMatch(c -> c < 0x20 || c > 0x7e)) {
      throw new OutboxConfigurationException("PayloadCodec", "The payload codec " + codec.getClass().getName()
          + " states the content type '" + contentType + "': it must be a media type of 1 to "
          + MessageChecks.MAX_CONTENT_TYPE_LENGTH + " printable ASCII characters, such as application/json");
    }
  }
}
