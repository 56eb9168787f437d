package dev.outboxer.sample.rest;

import dev.outboxer.UnknownOutboxException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.util.Map;

/** An outbox name that is not configured is a 404 with Outboxer's message (it lists the configured ones). */
@Provider
public class UnknownOutboxMapper implements ExceptionMapper<UnknownOutboxException> {

  @Override
  public Response toResponse(UnknownOutboxException e) {
    return Response.status(Response.Status.NOT_FOUND).type(MediaType.APPLICATION_JSON)
        .entity(Map.of("error", e.getMessage())).build();
  }
}
