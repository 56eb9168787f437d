package dev.outboxer.sqs;

import dev.outboxer.Ordering;
import dev.outboxer.spi.OutboxRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Splits a batch into waves: wave <i>k</i> holds the <i>k</i>-th record of every ordering unit, in
 * id order. The relay sends a wave only after every record of the previous wave has an outcome, so
 * no SendMessageBatch call holds a record while an earlier record of its unit may still fail
 * (the same split as the Kafka relay's; SQS gives no order across the entries of one call that
 * partly failed).
 *
 * <p>Units as {@link dev.outboxer.spi.Relay} defines them: a group key in {@code GROUP} mode (a
 * {@code null} key is a unit of its own), the whole batch in {@code TOTAL} mode, each record in
 * {@code NONE} mode. Hence {@code NONE} is one wave, {@code TOTAL} one wave per record, and
 * {@code GROUP} as many waves as the busiest group has records in the batch.
 */
final class Waves {

  private Waves() {}

  static List<List<OutboxRecord>> of(Ordering ordering, List<OutboxRecord> records) {
    switch (ordering) {
      case NONE:
        return List.of(records);
      case TOTAL:
        return records.stream().map(List::of).toList();
      case GROUP:
        return byGroup(records);
      default:
        throw new IllegalStateException("Unknown ordering " + ordering + ". Indicates a bug.");
    }
  }

  private static List<List<OutboxRecord>> byGroup(List<OutboxRecord> records) {
    List<List<OutboxRecord>> waves = new ArrayList<>();
    Map<String, Integer> seen = new HashMap<>();
    for (OutboxRecord record : records) {
      int wave = record.groupKey() == null ? 0 : seen.merge(record.groupKey(), 1, Integer::sum) - 1;
      if (wave == waves.size()) {
        waves.add(new ArrayList<>());
      }
      waves.get(wave).add(record);
    }
    return waves;
  }
}
