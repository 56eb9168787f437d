package dev.outboxer.it.platform.workers.lib;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.enterprise.context.ApplicationScoped;

/** What the probes observed, keyed by fact name; read by the in-container tests. */
@ApplicationScoped
public class ProbeLog {

    private final Map<String, String> facts = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> counters = new ConcurrentHashMap<>();

    public void put(String fact, String value) {
        facts.put(fact, value);
    }

    public String get(String fact) {
        return facts.get(fact);
    }

    public int increment(String counter) {
        return counters.computeIfAbsent(counter, c -> new AtomicInteger()).incrementAndGet();
    }

    public int count(String counter) {
        AtomicInteger value = counters.get(counter);
        return value == null ? 0 : value.get();
    }

    @Override
    public String toString() {
        return "facts=" + new TreeMap<>(facts) + ", counters=" + new TreeMap<>(counters);
    }

    static String describe(Throwable e) {
        return "failed: " + e;
    }
}
