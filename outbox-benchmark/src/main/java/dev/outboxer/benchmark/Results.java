package dev.outboxer.benchmark;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every value measured in a run, per metric (a line of the table) and contender, in the order the
 * metrics were declared; plus the errors, the partial drains and free-text lines.
 */
final class Results {

  /** A line of the table. {@code unit} is {@code msg/s}, {@code ms} or {@code x} (a ratio). */
  record Metric(String key, String label, String unit) {}

  private final Map<String, Metric> metrics = new LinkedHashMap<>();
  private final Map<String, Map<Contender, List<Double>>> values = new LinkedHashMap<>();
  private final Map<String, Map<Contender, List<String>>> errors = new LinkedHashMap<>();
  private final Map<String, Map<Contender, List<String>>> partial = new LinkedHashMap<>();
  private final List<String> notes = new ArrayList<>();
  private final Map<String, String> lines = new LinkedHashMap<>();

  synchronized void metric(String key, String label, String unit) {
    metrics.putIfAbsent(key, new Metric(key, label, unit));
  }

  synchronized void add(String key, Contender contender, double value) {
    requireMetric(key);
    values.computeIfAbsent(key, k -> new EnumMap<>(Contender.class))
        .computeIfAbsent(contender, c -> new ArrayList<>()).add(value);
  }

  synchronized void error(String key, Contender contender, String message) {
    requireMetric(key);
    errors.computeIfAbsent(key, k -> new EnumMap<>(Contender.class))
        .computeIfAbsent(contender, c -> new ArrayList<>()).add(message);
  }

  /** A drain that ran out of time; {@code drained} says how far it got, for example "800 of 20,000 in round 1". */
  synchronized void partial(String key, Contender contender, String drained) {
    requireMetric(key);
    partial.computeIfAbsent(key, k -> new EnumMap<>(Contender.class))
        .computeIfAbsent(contender, c -> new ArrayList<>()).add(drained);
  }

  synchronized void note(String note) {
    notes.add(note);
  }

  /** A line of its own under the table (for results that are not numbers per round). */
  synchronized void line(String label, String text) {
    lines.put(label, text);
  }

  private void requireMetric(String key) {
    if (!metrics.containsKey(key)) {
      throw new IllegalArgumentException("metric " + key + " was not declared. Indicates a bug in the benchmark.");
    }
  }

  synchronized List<Metric> metrics() {
    return List.copyOf(metrics.values());
  }

  synchronized List<Double> values(String key, Contender contender) {
    return List.copyOf(values.getOrDefault(key, Map.of()).getOrDefault(contender, List.of()));
  }

  synchronized List<String> errors(String key, Contender contender) {
    return List.copyOf(errors.getOrDefault(key, Map.of()).getOrDefault(contender, List.of()));
  }

  synchronized boolean isPartial(String key, Contender contender) {
    return partial.getOrDefault(key, Map.of()).containsKey(contender);
  }

  /** Per metric and contender, how far each drain that ran out of time got. */
  synchronized List<String> partialDrains() {
    List<String> all = new ArrayList<>();
    partial.forEach((key, byContender) -> byContender.forEach((contender, drained) ->
        all.add(contender.label() + ", " + metrics.get(key).label() + ": " + String.join("; ", drained))));
    return all;
  }

  /** Every error of the run, as "metric / contender: message". */
  synchronized List<String> allErrors() {
    List<String> all = new ArrayList<>();
    errors.forEach((key, byContender) -> byContender.forEach((contender, messages) ->
        messages.forEach(message -> all.add(metrics.get(key).label() + " / " + contender.label() + ": " + message))));
    return all;
  }

  synchronized List<String> notes() {
    return Collections.unmodifiableList(new ArrayList<>(notes));
  }

  synchronized Map<String, String> lines() {
    return Map.copyOf(lines);
  }

  synchronized List<Map.Entry<String, String>> orderedLines() {
    return List.copyOf(lines.entrySet());
  }
}
