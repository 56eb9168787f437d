package dev.outboxer.sample.rest;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import java.util.Set;

/**
 * The sample's REST API, under {@code /orders/api} (context root {@code /orders}).
 *
 * <p>It names its classes: an {@code Application} that names none takes in every resource and
 * provider of the WAR, and would then also serve outbox-admin's API and console under {@code /api}
 * (and put this sample's exception mappers in front of them). outbox-admin has its own application
 * at {@code /orders/outbox-admin}.
 */
@ApplicationPath("/api")
public class OrdersApplication extends Application {

  @Override
  public Set<Class<?>> getClasses() {
    return Set.of(OrdersResource.class, EventsResource.class, OutboxesResource.class, ShippingResource.class,
        UnknownOutboxMapper.class, UnexpectedErrorMapper.class);
  }
}
