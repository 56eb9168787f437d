package dev.outboxer.it.platform.ear.lib;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;

/** A CDI bean in the EAR's lib/ jar, configured from that jar's microprofile-config.properties. */
@ApplicationScoped
public class EarLibGreeter {

    @Inject
    @ConfigProperty(name = "outboxer.smoke.ear-greeting")
    String greeting;

    public String greet(String name) {
        return greeting + ", " + name;
    }
}
