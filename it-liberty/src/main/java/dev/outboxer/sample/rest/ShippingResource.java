package dev.outboxer.sample.rest;

import dev.outboxer.sample.ShippingPartner;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The simulated shipping partner behind the {@code shipping} outbox: {@code GET /api/shipping}
 * shows what it accepted, {@code PUT /api/shipping/outage} starts an outage (its relay then fails
 * every request), {@code DELETE /api/shipping/outage} ends it.
 */
@Path("/shipping")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class ShippingResource {

  @Inject
  ShippingPartner partner;

  @GET
  public Map<String, Object> status() {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("available", partner.isAvailable());
    body.put("accepted", partner.accepted());
    return body;
  }

  @PUT
  @Path("outage")
  public Map<String, Object> startOutage() {
    partner.setAvailable(false);
    return Map.of("available", false);
  }

  @DELETE
  @Path("outage")
  public Map<String, Object> endOutage() {
    partner.setAvailable(true);
    return Map.of("available", true);
  }
}
