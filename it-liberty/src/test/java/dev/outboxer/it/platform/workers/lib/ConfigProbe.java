package dev.outboxer.it.platform.workers.lib;

import java.util.Set;
import java.util.TreeSet;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Reads MicroProfile Config from the META-INF/microprofile-config.properties of its own jar. */
@ApplicationScoped
public class ConfigProbe {

    @Inject
    @ConfigProperty(name = "outboxer.smoke.greeting")
    String greeting;

    public String greeting() {
        return greeting;
    }

    /** The way the library will discover outboxes: every key under the "outbox." prefix. */
    public Set<String> outboxKeys() {
        Set<String> keys = new TreeSet<>();
        for (String name : ConfigProvider.getConfig().getPropertyNames()) {
            if (name.startsWith("outbox.")) {
                keys.add(name);
            }
        }
        return keys;
    }
}
