package dev.outboxer.benchmark;

/** What the benchmark relay tells when it receives a message (before it confirms it). Implementations are thread-safe. */
interface Arrivals {

  /** The relay received the message with this id; called once per delivery, so a redelivery calls it again. */
  void received(long id);
}
