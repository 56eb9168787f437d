package dev.outboxer.sample.rest;

import dev.outboxer.DeadMessage;
import dev.outboxer.OutboxAdmin;
import dev.outboxer.OutboxCounts;
import dev.outboxer.UnknownOutboxException;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Operations on an outbox through {@link OutboxAdmin}: {@code GET /api/outboxes/{name}} counts,
 * {@code GET .../dead} lists dead messages, {@code POST .../dead/retry[?id=..]} revives them,
 * {@code DELETE .../messages/{id}} discards one. An unknown outbox is a 404.
 */
@Path("/outboxes/{name}")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class OutboxesResource {

  @Inject
  OutboxAdmin admin;

  @GET
  public Map<String, Object> counts(@PathParam("name") String name) {
    OutboxCounts counts = admin.counts(known(name));
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("outbox", name);
    body.put("pending", counts.pending());
    body.put("retrying", counts.retrying());
    body.put("dead", counts.dead());
    body.put("oldestPendingAgeSeconds", counts.oldestPendingAge().toMillis() / 1000.0);
    return body;
  }

  @GET
  @Path("dead")
  public List<DeadMessage> dead(@PathParam("name") String name, @QueryParam("limit") @DefaultValue("20") int limit) {
    return admin.dead(known(name), limit);
  }

  /** Revives the given dead messages ({@code ?id=7&id=9}), or all of them. */
  @POST
  @Path("dead/retry")
  public Map<String, Object> retryDead(@PathParam("name") String name, @QueryParam("id") List<Long> ids) {
    int revived = admin.retryDead(known(name), ids.stream().mapToLong(Long::longValue).toArray());
    return Map.of("outbox", name, "revived", revived);
  }

  @DELETE
  @Path("messages/{id}")
  public Response discard(@PathParam("name") String name, @PathParam("id") long id) {
    return admin.discard(known(name), id) ? Response.noContent().build()
        : Response.status(Response.Status.NOT_FOUND).entity(Map.of("error", "no message " + id + " in " + name)).build();
  }

  /**
   * The name if such an outbox is configured, else {@link UnknownOutboxException} (a 404), thrown
   * here rather than left to OutboxAdmin (which refuses it before its transactional work starts):
   * Open Liberty writes an FFDC incident for every exception that leaves a {@code @Transactional}
   * method, and a wrong name in a URL is an expected error, whatever OutboxAdmin's implementation.
   */
  private String known(String name) {
    List<String> outboxes = admin.outboxes();
    if (!outboxes.contains(name)) {
      throw new UnknownOutboxException("No outbox named '" + name + "' is configured. Configured outboxes: "
          + new TreeSet<>(outboxes));
    }
    return name;
  }
}
