package dev.outboxer.sample.rest;

import dev.outboxer.sample.ReceivedEvent;
import dev.outboxer.sample.ReceivedEvents;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.List;

/**
 * {@code GET /api/events}: what the sample's JMS consumers received, in arrival order. Filters:
 * {@code queue} ({@code orders} or {@code audit}), {@code customer}, {@code group} (a group key).
 */
@Path("/events")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class EventsResource {

  @Inject
  ReceivedEvents received;

  @GET
  public List<ReceivedEvent> list(@QueryParam("queue") String queue, @QueryParam("customer") String customer,
      @QueryParam("group") String group) {
    return received.find(queue, group, customer);
  }
}
