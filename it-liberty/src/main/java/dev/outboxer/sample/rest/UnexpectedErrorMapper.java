package dev.outboxer.sample.rest;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/** Any other failure: a JSON 500 naming the exception and its root cause (it is a demo). */
@Provider
public class UnexpectedErrorMapper implements ExceptionMapper<Exception> {

  private static final Logger LOG = Logger.getLogger(UnexpectedErrorMapper.class.getName());

  @Override
  public Response toResponse(Exception e) {
    if (e instanceof WebApplicationException web) {
      return web.getResponse();
    }
    LOG.log(Level.WARNING, "Request failed", e);
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    Map<String, String> body = new LinkedHashMap<>();
    body.put("error", String.valueOf(e));
    body.put("rootCause", String.valueOf(root));
    return Response.serverError().type(MediaType.APPLICATION_JSON).entity(body).build();
  }
}
