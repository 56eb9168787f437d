package dev.outboxer.it.platform.workers.lib;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;

import org.eclipse.microprofile.metrics.Metadata;
import org.eclipse.microprofile.metrics.MetricRegistry;
import org.eclipse.microprofile.metrics.Tag;

/** Registers outbox-style metrics tagged by outbox, from a WEB-INF/lib jar. */
@ApplicationScoped
public class MetricsProbe {

    private static final Tag OUTBOX = new Tag("outbox", "orders");

    @Inject
    MetricRegistry registry;

    @Inject
    ProbeLog log;

    private final AtomicLong pending = new AtomicLong(7);

    void register(@Observes @Initialized(ApplicationScoped.class) Object applicationStarted) {
        try {
            registry.counter(Metadata.builder()
                            .withName("outboxer_smoke_published")
                            .withDescription("Messages published (smoke test)")
                            .build(), OUTBOX)
                    .inc(3);
            registry.gauge("outboxer_smoke_pending", pending, AtomicLong::get, OUTBOX);
            registry.timer("outboxer_smoke_batch", OUTBOX).update(Duration.ofMillis(12));
            log.put("metrics.registered", "ok");
        } catch (Exception e) {
            log.put("metrics.registered", ProbeLog.describe(e));
        }
    }
}
