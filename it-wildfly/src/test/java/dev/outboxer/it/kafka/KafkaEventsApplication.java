package dev.outboxer.it.kafka;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

/** The REST root of the Kafka test application. */
@ApplicationPath("api")
public class KafkaEventsApplication extends Application {}
