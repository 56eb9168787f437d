package dev.outboxer.it.telemetry;

import dev.outboxer.Outbox;
import dev.outboxer.it.support.ProbeMessage;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * {@code POST /traced-api/traced-publish}: publishes one message to the outbox {@code traced} in the
 * request's transaction and answers its id. MicroProfile Telemetry traces the request (a SERVER
 * span, continuing the caller's {@code traceparent}), so the publish happens inside that span.
 */
@Path("/traced-publish")
@RequestScoped
public class TracedPublishResource {

  @Inject Outbox outbox;

  @POST
  @Transactional
  @Produces(MediaType.TEXT_PLAIN)
  public String publish() {
    return Long.toString(outbox.publish("traced", new ProbeMessage("traced request")));
  }
}
