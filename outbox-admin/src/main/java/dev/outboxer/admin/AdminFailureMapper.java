package dev.outboxer.admin;

import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Request;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Answers a failure nobody expected (a bug, a database gone) with 500 and a {@link Problem} that
 * names an incident id and nothing else: the exception's text can hold connection URLs, SQL or
 * stack frames, which are for the server log, not for the caller. The exception is logged at
 * SEVERE on {@code dev.outboxer.admin} under the same incident id. A {@link
 * jakarta.ws.rs.WebApplicationException} is {@link AdminProblemMapper}'s (Jakarta REST picks the
 * mapper of the nearest type); a {@link VirtualMachineError} is not answered but rethrown.
 *
 * <p>Registered by {@link OutboxAdminApplication} and deliberately not annotated {@code @Provider}
 * (see {@link AdminProblemMapper}). Public only because Jakarta REST instantiates it; not API.
 */
public final class AdminFailureMapper implements ExceptionMapper<Throwable> {

  private static final Logger LOG = Logger.getLogger("dev.outboxer.admin");

  @Context UriInfo uri;
  @Context Request request;

  @Override
  public Response toResponse(Throwable failure) {
    if (failure instanceof VirtualMachineError error) {
      throw error;
    }
    String incident = UUID.randomUUID().toString();
    LOG.log(Level.SEVERE, "outbox-admin: incident " + incident + ": " + request.getMethod() + " "
        + Problem.printable(uri.getRequestUri().getRawPath()) + " failed unexpectedly", failure);
    return Problem.answer(500, "The outbox admin API failed unexpectedly (incident " + incident + "); the server"
        + " log has the details under that incident id").build();
  }
}
