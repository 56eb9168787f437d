package dev.outboxer.it.kafka;

import jakarta.inject.Inject;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.List;
import java.util.stream.Collectors;

/**
 * {@code POST /api/events?group=g&first=0&count=3[&fail=true]}: publishes in one transaction and
 * answers the ids publish returned, comma-separated: 200 when it committed, 409 when it rolled back.
 */
@Path("events")
public class KafkaEventResource {

  @Inject
  KafkaEventPublisher publisher;

  @POST
  @Produces(MediaType.TEXT_PLAIN)
  public Response publish(@QueryParam("group") String group, @QueryParam("first") @DefaultValue("0") int first,
      @QueryParam("count") @DefaultValue("1") int count, @QueryParam("fail") boolean fail) {
    if (!fail) {
      return Response.ok(text(publisher.publish(group, first, count))).build();
    }
    try {
      publisher.publishThenFail(group, first, count);
      throw new IllegalStateException("publishThenFail returned");
    } catch (KafkaEventPublisher.RolledBack rolledBack) {
      return Response.status(Response.Status.CONFLICT).entity(text(rolledBack.ids)).build();
    }
  }

  private static String text(List<Long> ids) {
    return ids.stream().map(String::valueOf).collect(Collectors.joining(","));
  }
}
