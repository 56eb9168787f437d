package dev.outboxer.spi;

import dev.outboxer.Ordering;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The ordering units of a batch, as {@link Relay} defines them, written once for the core, the
 * relays, the add-ons and the test kit: a group key in {@link Ordering#GROUP} mode (a record
 * without a group key is a unit of its own), the whole batch in {@link Ordering#TOTAL} mode, each
 * record in {@link Ordering#NONE} mode. Within a unit, a record may be delivered only after every
 * earlier record of the unit was confirmed; a failure holds back the rest of its unit and nothing
 * else.
 *
 * <p>Guarantees: {@link #unitOf} gives two records the same non-null unit exactly when the
 * ordering mode puts them in one unit; {@link #waves} keeps every record once, in id order within
 * each wave and within each unit. Not guaranteed: anything about records of different batches
 * (a unit spans batches only through the order in which the core reads them).
 */
public final class OrderingUnits {

  /** The one unit of every record in total ordering. */
  private static final Object WHOLE_BATCH = new Object() {
    @Override
    public String toString() {
      return "the whole batch";
    }
  };

  private OrderingUnits() {}

  /**
   * The ordering unit of a record.
   *
   * @param ordering the outbox's ordering mode
   * @param groupKey the record's group key, or {@code null}
   * @return a key equal for the records of one unit, or {@code null} if the record is a unit of its
   *     own (no ordering with any other record)
   */
  public static Object unitOf(Ordering ordering, String groupKey) {
    return switch (Objects.requireNonNull(ordering, "ordering")) {
      case GROUP -> groupKey;
      case TOTAL -> WHOLE_BATCH;
      case NONE -> null;
    };
  }

  /**
   * The ordering unit of a record.
   *
   * @param ordering the outbox's ordering mode
   * @param record a record
   * @return as {@link #unitOf(Ordering, String)}
   */
  public static Object unitOf(Ordering ordering, OutboxRecord record) {
    return unitOf(ordering, record.groupKey());
  }

  /**
   * Splits records into waves: wave <i>k</i> holds the <i>k</i>-th record of every ordering unit,
   * in id order. A relay that sends a wave only after every record of the previous wave has an
   * outcome never hands a record on while an earlier record of its unit may still fail, and still
   * sends the records of different units side by side. {@code NONE} is one wave, {@code TOTAL} one
   * wave per record, {@code GROUP} as many waves as the busiest group has records.
   *
   * @param ordering the outbox's ordering mode
   * @param records the records, in ascending id order
   * @return the waves, each non-empty, unmodifiable
   */
  public static List<List<OutboxRecord>> waves(Ordering ordering, List<OutboxRecord> records) {
    if (records.isEmpty()) {
      return List.of();
    }
    if (ordering == Ordering.NONE) {
      return List.of(List.copyOf(records));
    }
    List<List<OutboxRecord>> waves = new ArrayList<>();
    Map<Object, Integer> seen = new HashMap<>();
    for (OutboxRecord record : records) {
      Object unit = unitOf(ordering, record);
      int wave = unit == null ? 0 : seen.merge(unit, 1, Integer::sum) - 1;
      if (wave == waves.size()) {
        waves.add(new ArrayList<>());
      }
      waves.get(wave).add(record);
    }
    return waves.stream().map(List::copyOf).toList();
  }
}
