package dev.outboxer.admin;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Request;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;

/**
 * Gives the server's own refusals in this application a {@link Problem} body, as the API's own
 * ones have: an unknown path (404), a method the path does not take (405, with its {@code Allow}
 * header), a type the client does not accept (406), and any other status Jakarta REST answers
 * without a body. A refusal that already has a body (every one the resources make) is answered
 * as it is.
 *
 * <p>Registered by {@link OutboxAdminApplication} and deliberately not annotated {@code @Provider}:
 * an application that takes in every class of the WAR must not get its own errors rewritten. Public
 * only because Jakarta REST instantiates it; not API.
 */
public final class AdminProblemMapper implements ExceptionMapper<WebApplicationException> {

  @Context UriInfo uri;
  @Context Request request;

  @Override
  public Response toResponse(WebApplicationException exception) {
    Response response = exception.getResponse();
    if (response.hasEntity()) {
      return response;
    }
    int status = response.getStatus();
    String path = Problem.printable(uri.getRequestUri().getRawPath());
    String error = switch (status) {
      case 404 -> "Nothing is at " + path + ": the API's paths are under /" + OutboxAdminApplication.PATH
          + "/api/outboxes";
      case 405 -> request.getMethod() + " is not allowed on " + path + "; it takes "
          + response.getHeaderString(HttpHeaders.ALLOW);
      case 406 -> "The API answers " + MediaType.APPLICATION_JSON + " only, which the request's Accept header"
          + " does not take";
      default -> "The request to " + path + " was refused: " + status + " "
          + response.getStatusInfo().getReasonPhrase();
    };
    return Response.fromResponse(response).type(MediaType.APPLICATION_JSON_TYPE).entity(new Problem(status, error))
        .build();
  }
}
