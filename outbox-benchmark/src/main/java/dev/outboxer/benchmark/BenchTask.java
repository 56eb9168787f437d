package dev.outboxer.benchmark;

/** gruelbox's unit of work in the benchmark: scheduled with the message's fields, invoked to "relay" it. */
interface BenchTask {

  void relay(String groupKey, long sequence, String note);
}
