package dev.outboxer.inbox;

import java.sql.Connection;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import javax.sql.DataSource;

/**
 * Drops the duplicates and stale redeliveries an outbox may send, inside the consumer's own
 * transaction. Call {@link #accept} before processing a received message, in the transaction that
 * does the processing: {@code true} means process it, {@code false} means it was processed before
 * (or is older than what was), skip it.
 *
 * <pre>{@code
 * if (inbox.accept(JmsInboxMessage.from(message))) {
 *     orders.markPaid(...);          // commits together with the inbox's row
 * }
 * }</pre>
 *
 * <h2>The rule</h2>
 * Within one group of one outbox, Outboxer's ids only increase in relay order. The inbox keeps the
 * <b>last accepted id per (outbox, group)</b> and accepts a message if and only if its id is greater:
 * <ul>
 *   <li>a redelivered message (same id) is dropped;</li>
 *   <li>an older message arriving after a newer one of its group (a stale copy sent by a node that
 *       had lost its claim, a redelivered batch overtaken by the next one) is dropped;</li>
 *   <li>a dead message that an operator revived ({@link dev.outboxer.OutboxAdmin#retryDead}) is
 *       accepted: it is re-published under a <b>new, greater id</b>, after everything its group
 *       published meanwhile.</li>
 * </ul>
 * Messages without group key, and every message of an outbox configured to be deduplicated by id
 * ({@link Builder#deduplicateById}), are accepted once per id: the inbox remembers each accepted id
 * (until {@link #purge}).
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li>The accept is a row written in the caller's transaction: it commits with the processing, or
 *       is forgotten with it (a rolled-back message is accepted again when it is redelivered).</li>
 *   <li>Two consumers that accept the same group at once are serialised by a row lock: the second
 *       waits for the first's transaction, then sees its outcome. Of two copies of one message, at
 *       most one is accepted by committed transactions.</li>
 * </ul>
 *
 * <h2>Not guaranteed</h2>
 * <ul>
 *   <li>By group, a message that reaches the consumer <i>after</i> a later message of its group was
 *       accepted is dropped even if it was never processed. This is right only if the consumer
 *       receives each group in id order: Kafka (one partition per key), SQS FIFO, a JMS queue with
 *       one consumer or with message groups ({@code JMSXGroupID}, honoured by ActiveMQ Artemis),
 *       publishers of a group serialised ({@code serialize-writes} or a lock on the aggregate) and
 *       the outbox's ordering {@code group} or {@code total}. Otherwise deduplicate by id.</li>
 *   <li>The inbox does not know what the consumer's transaction did: accept and processing must
 *       share one transaction (a JTA transaction, or the JDBC connection passed to {@link
 *       #accept(Connection, InboxMessage)}).</li>
 *   <li>After {@link #purge}, a copy of a purged message is accepted again.</li>
 * </ul>
 *
 * <p>Implementations are thread-safe. Get one with {@link #builder(DataSource)} (Java SE) or inject
 * it (CDI, configured with {@code outbox.inbox.*}: see {@link InboxProducer}).
 */
public interface Inbox {

  /**
   * Decides, in the caller's transaction, whether to process a message, and if so records it. The
   * connection comes from the inbox's {@link DataSource}, which must join the active transaction
   * (a JTA data source inside a JTA transaction).
   *
   * @param message the received message's outbox, group key and id
   * @return {@code true} to process it; {@code false} if it is a duplicate or stale: skip it
   * @throws InboxException if there is no transaction to join (the connection is in auto-commit),
   *     or the database failed; the caller's transaction should then roll back
   */
  boolean accept(InboxMessage message);

  /**
   * Decides, in the transaction of {@code connection}, whether to process a message, and if so
   * records it there. For Java SE consumers that manage a JDBC transaction themselves: commit the
   * connection after processing.
   *
   * @param connection a connection in the consumer's transaction (auto-commit off); not closed
   * @param message the received message's outbox, group key and id
   * @return {@code true} to process it; {@code false} if it is a duplicate or stale: skip it
   * @throws InboxException if the connection is in auto-commit mode or the database failed
   */
  boolean accept(Connection connection, InboxMessage message);

  /**
   * {@link #accept(InboxMessage)} with the values of the message's headers.
   *
   * @param outbox the outbox name
   * @param groupKey the group key, {@code null} for an ungrouped message
   * @param id the message id
   * @return {@code true} to process it; {@code false} to skip it
   * @throws IllegalArgumentException if the values are not ones an outbox sends (see {@link
   *     InboxMessage}); nothing reaches the database
   */
  default boolean accept(String outbox, String groupKey, long id) {
    return accept(new InboxMessage(outbox, groupKey, id));
  }

  /**
   * Forgets groups and ids last accepted before {@code processedBefore}, in the caller's transaction
   * (a JTA transaction; run it from a scheduled job in a short transaction of its own). A copy of
   * a forgotten message that arrives later is accepted again, so choose a cut-off well beyond the
   * longest time a copy can take to arrive (outages, broker retention); weeks, not minutes.
   *
   * <p>A cut-off after 9999-12-31T23:59:59.999999Z (such as {@link Instant#MAX}) forgets everything,
   * one before 0001-01-01T00:00:00Z (such as {@link Instant#MIN}) nothing: every time the inbox
   * stores lies between the two (MariaDB stores no later one), and no database takes such a cut-off
   * as a value.
   *
   * @param processedBefore the cut-off, compared with the time of the last accept (UTC)
   * @return how many rows were removed
   * @throws InboxException if there is no transaction to join or the database failed
   * @throws NullPointerException if {@code processedBefore} is null
   */
  int purge(Instant processedBefore);

  /**
   * {@link #purge(Instant)} in the transaction of {@code connection} (Java SE); commit it after.
   *
   * @param connection a connection in a transaction (auto-commit off); not closed
   * @param processedBefore the cut-off, compared with the time of the last accept (UTC); outside
   *     the years 1 to 9999 clamped as in {@link #purge(Instant)}
   * @return how many rows were removed
   * @throws InboxException if the connection is in auto-commit mode or the database failed
   * @throws NullPointerException if {@code processedBefore} is null
   */
  int purge(Connection connection, Instant processedBefore);

  /**
   * Starts building an inbox on a data source. In Jakarta EE give it the JTA data source your
   * consumer's transaction uses (or inject the CDI bean instead); in Java SE any data source, and
   * call {@link #accept(Connection, InboxMessage)} with the connection of your transaction.
   *
   * @param dataSource where the inbox tables are
   * @return a builder
   */
  static Builder builder(DataSource dataSource) {
    return new Builder(dataSource);
  }

  /** Configures an {@link Inbox}. Not thread-safe; the inbox it builds is. */
  final class Builder {

    private final DataSource dataSource;
    private final Set<String> byId = new LinkedHashSet<>();
    private Clock clock = Clock.systemUTC();
    private boolean checkSchema = true;

    private Builder(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /**
     * Deduplicates every message of these outboxes by its id instead of by its group: for an
     * outbox with ordering {@code none}, or a consumer that does not receive each group in order
     * (several JMS consumers without message groups). Costs a row per accepted message until
     * {@link Inbox#purge}. Default: none (by group; ungrouped messages by id).
     *
     * @param outboxes outbox names
     * @return this builder
     */
    public Builder deduplicateById(String... outboxes) {
      for (String outbox : outboxes) {
        byId.add(Objects.requireNonNull(outbox, "outbox"));
      }
      return this;
    }

    /**
     * The clock that stamps each accept (for {@link Inbox#purge}). Default: the system clock, UTC.
     *
     * @param clock the clock
     * @return this builder
     */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Whether {@link #build()} checks the inbox tables (and fails naming what is missing or wrong
     * and the script that creates them): that they exist with their columns; that each has the
     * primary key (or a unique constraint) on (outbox, group key) and (outbox, id) that tells a copy
     * from a new message; that the ids are 64 bits wide and the outbox and group key columns hold
     * 100 and 255 characters (H2: 510 UTF-16 units) and compare exactly (MariaDB: utf8mb4 with a
     * {@code _nopad_bin} collation for the group key, a binary one for the outbox; no {@code
     * VARCHAR_IGNORECASE} or {@code citext}). Default: {@code true}. Without the check a table
     * without its key lets copies through on MariaDB; a missing table fails each accept, naming
     * the script.
     *
     * @param check whether to check
     * @return this builder
     */
    public Builder checkSchema(boolean check) {
      this.checkSchema = check;
      return this;
    }

    /**
     * Connects once to find the database (PostgreSQL, MariaDB, H2 or SQLite) and, unless switched off,
     * check the schema.
     *
     * @return the inbox
     * @throws InboxException if the database is not supported or the schema is missing,
     *     incomplete or unfit (see {@link #checkSchema})
     */
    public Inbox build() {
      return JdbcInbox.create(dataSource, Set.copyOf(byId), clock, checkSchema);
    }
  }
}
