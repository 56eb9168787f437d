package dev.outboxer;

/**
 * The order an outbox keeps, set with {@code outbox.<name>.ordering}.
 *
 * <p>In every mode, messages are read by id and a row is deleted only after the relay confirmed
 * it. The modes differ in what a failing message holds back.
 *
 * <table>
 *   <caption>Ordering modes</caption>
 *   <tr><th>mode</th><th>order guaranteed</th><th>a failing message blocks</th><th>parallelism</th></tr>
 *   <tr><td>{@link #GROUP}</td><td>among messages with the same group key</td>
 *       <td>its own group only</td><td>{@code partitions} workers</td></tr>
 *   <tr><td>{@link #TOTAL}</td><td>across the whole outbox</td><td>everything behind it</td>
 *       <td>one worker</td></tr>
 *   <tr><td>{@link #NONE}</td><td>none</td><td>nothing</td><td>{@code partitions} workers</td></tr>
 * </table>
 */
public enum Ordering {
  /**
   * Order per {@linkplain OutboxMessage#groupKey() group key} (the default). Within a group,
   * message <i>n+1</i> is never handed to the relay before message <i>n</i> was confirmed (or died
   * or was discarded). A failing message holds back only the later messages of its own group; other
   * groups and messages with a {@code null} key keep flowing, even in the same partition and batch.
   */
  GROUP,

  /**
   * One global order across the whole outbox: one partition, one worker in the cluster, and a
   * failing message stops everything behind it until it succeeds, dies or is discarded. For
   * low-volume streams where global order really matters, such as an audit log.
   */
  TOTAL,

  /**
   * No order: messages go out roughly by id, and a failing message holds back nothing.
   */
  NONE;

  /**
   * The configuration spelling of this mode: {@code group}, {@code total} or {@code none}.
   *
   * @return the lower-case name
   */
  public String configValue() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
