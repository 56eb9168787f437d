package dev.outboxer.cdi.internal.publish;

import dev.outboxer.Outbox;
import dev.outboxer.OutboxException;
import dev.outboxer.OutboxMessage;
import dev.outboxer.OutboxTransactionRequiredException;
import dev.outboxer.Outboxed;
import dev.outboxer.UnknownOutboxException;
import dev.outboxer.cdi.internal.cdi.EntityManagerLookup;
import dev.outboxer.cdi.internal.cdi.TimeSource;
import dev.outboxer.cdi.internal.config.OutboxConfiguration;
import dev.outboxer.cdi.internal.config.OutboxSettings;
import dev.outboxer.cdi.internal.metrics.OutboxMetrics;
import dev.outboxer.cdi.internal.store.GroupHash;
import dev.outboxer.cdi.internal.store.MessageStore;
import dev.outboxer.cdi.internal.store.OutboxMessageEntity;
import dev.outboxer.cdi.internal.tx.Transactions;
import dev.outboxer.cdi.internal.work.Workers;
import dev.outboxer.spi.PayloadCodec;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/** The {@link Outbox} bean: writes message rows through the application's EntityManager in its transaction. */
@ApplicationScoped
public class OutboxPublisher implements Outbox {

  private final Map<Class<?>, String> typeNames = new ConcurrentHashMap<>();

  @Inject OutboxConfiguration configuration;
  @Inject Transactions transactions;
  @Inject EntityManagerLookup entityManagers;
  @Inject MessageStore store;
  @Inject Codecs codecs;
  @Inject TimeSource time;
  @Inject Workers workers;
  @Inject OutboxMetrics metrics;

  @Override
  public long publish(OutboxMessage message) {
    Objects.requireNonNull(message, "message");
    Outboxed outboxed = message.getClass().getAnnotation(Outboxed.class);
    if (outboxed == null) {
      throw new UnknownOutboxException("Message type " + message.getClass().getName() + " has no @Outboxed annotation:"
          + " annotate it with @Outboxed(\"<outbox>\") or call publish(outbox, message)");
    }
    return publish(outboxed.value(), message);
  }

  @Override
  public long publish(String outbox, OutboxMessage message) {
    Objects.requireNonNull(message, "message");
    OutboxSettings settings = configuration.require(outbox);
    if (!transactions.isActive()) {
      throw new OutboxTransactionRequiredException(outbox, "Outbox '" + outbox + "': publish needs an active JTA"
          + " transaction, so that the message commits or rolls back with the business data; none is active."
          + " Publish from an EJB business method, a @Transactional CDI method or between UserTransaction.begin() and"
          + " commit(). Nothing was written.");
    }
    String type = typeName(message.getClass());
    String groupKey = message.groupKey();
    Map<String, String> headers = message.headers();
    check(outbox, groupKey == null || groupKey.length() <= OutboxMessageEntity.MAX_GROUP_KEY_LENGTH,
        "the group key is longer than " + OutboxMessageEntity.MAX_GROUP_KEY_LENGTH + " characters");
    check(outbox, headers != null, "headers() returned null");

    PayloadCodec codec = codecs.payloadCodec();
    byte[] payload;
    try {
      payload = codec.encode(message);
    } catch (RuntimeException e) {
      throw new OutboxException("Outbox '" + outbox + "': the " + codec.getClass().getSimpleName() + " could not encode"
          + " a " + message.getClass().getName() + ". Nothing was written.", e);
    }
    check(outbox, payload != null, codec.getClass().getName() + " returned no payload");
    String contentType = codec.contentType();
    check(outbox, contentType != null && !contentType.isBlank()
        && contentType.length() <= OutboxMessageEntity.MAX_CONTENT_TYPE_LENGTH,
        codec.getClass().getName() + " states no content type of 1 to " + OutboxMessageEntity.MAX_CONTENT_TYPE_LENGTH
            + " characters");
    String storedHeaders = codecs.encodeHeaders(headers);
    check(outbox, storedHeaders == null || storedHeaders.length() <= OutboxMessageEntity.MAX_HEADERS_LENGTH,
        "the headers take more than " + OutboxMessageEntity.MAX_HEADERS_LENGTH + " characters");

    EntityManager em = entityManagers.entityManager();
    if (!em.isJoinedToTransaction()) {
      throw new OutboxException("Outbox '" + outbox + "': the EntityManager Outboxer uses is not joined to the active"
          + " JTA transaction, so the message would not commit with it. Produce a container-managed (or"
          + " @TransactionScoped) EntityManager with @OutboxPersistence. Nothing was written.");
    }
    // The lock comes before the id: ids of one group then increase in commit order, not just insertion order.
    if (settings.serializeWrites() && groupKey != null) {
      store.lockGroup(em, outbox, groupKey);
    }
    long id = store.nextId(em);
    int partition = groupKey == null
        ? GroupHash.partitionOfUngrouped(id, settings.partitions())
        : GroupHash.partition(groupKey, settings.partitions());
    em.persist(new OutboxMessageEntity(id, outbox, partition, groupKey, type, contentType, payload,
        storedHeaders, time.nowUtc()));
    AfterCommit.record(transactions.registry(), outbox, partition, (published, count) -> {
      metrics.published(published.getKey(), count);
      workers.wake(published.getKey(), published.getValue());
    });
    return id;
  }

  private static void check(String outbox, boolean condition, String problem) {
    if (!condition) {
      throw new OutboxException("Outbox '" + outbox + "': " + problem + ". Nothing was written.");
    }
  }

  private String typeName(Class<?> messageClass) {
    return typeNames.computeIfAbsent(messageClass, type -> {
      Outboxed outboxed = type.getAnnotation(Outboxed.class);
      String name = outboxed == null || outboxed.type().isBlank() ? type.getSimpleName() : outboxed.type();
      if (name.isEmpty() || name.length() > OutboxMessageEntity.MAX_TYPE_LENGTH) {
        throw new OutboxException("Message class " + type.getName() + " needs a type name of 1 to "
            + OutboxMessageEntity.MAX_TYPE_LENGTH + " characters: set @Outboxed(type = ...)");
      }
      return name;
    });
  }
}
