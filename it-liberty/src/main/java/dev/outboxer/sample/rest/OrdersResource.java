package dev.outboxer.sample.rest;

import dev.outboxer.sample.OrderDesk;
import dev.outboxer.sample.OrderRequest;
import dev.outboxer.sample.OrderService;
import dev.outboxer.sample.PlacedOrder;
import dev.outboxer.sample.PurchaseOrder;
import dev.outboxer.sample.SimulatedFailure;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.core.Context;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code POST /api/orders} places an order through the CDI bean ({@code ?via=cdi}, the default) or
 * the EJB ({@code ?via=ejb}); {@code ?fail=true} makes the bean fail after it wrote the order and
 * published its events, so that everything rolls back. {@code GET} reads orders.
 */
@Path("/orders")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class OrdersResource {

  @Inject
  OrderService service;

  @Inject
  OrderDesk desk;

  @Context
  UriInfo uri;

  @POST
  @Consumes(MediaType.APPLICATION_JSON)
  public Response place(OrderRequest request, @QueryParam("via") @DefaultValue("cdi") String via,
      @QueryParam("fail") @DefaultValue("false") boolean fail) {
    String problem = request == null ? "send a JSON body {\"customer\":..., \"item\":..., \"quantity\":...}" : request.problem();
    if (problem == null && !via.equals("cdi") && !via.equals("ejb")) {
      problem = "via must be cdi or ejb";
    }
    if (problem != null) {
      return Response.status(Response.Status.BAD_REQUEST).entity(Map.of("error", problem)).build();
    }
    try {
      PlacedOrder placed;
      if (via.equals("ejb")) {
        placed = fail ? desk.placeThenFail(request) : desk.place(request);
      } else {
        placed = fail ? service.placeThenFail(request) : service.place(request);
      }
      return Response.created(uri.getAbsolutePathBuilder().path(String.valueOf(placed.orderId())).build())
          .entity(placed).build();
    } catch (SimulatedFailure failure) {
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("error", failure.getMessage());
      body.put("rolledBack", failure.attempted());
      return Response.serverError().entity(body).build();
    }
  }

  @GET
  @Path("{id}")
  public Response get(@PathParam("id") long id) {
    return service.find(id).map(order -> Response.ok(order))
        .orElseGet(() -> Response.status(Response.Status.NOT_FOUND).entity(Map.of("error", "no order " + id)))
        .build();
  }

  /** The orders of a customer, or the latest 50. */
  @GET
  public List<PurchaseOrder> list(@QueryParam("customer") String customer) {
    return customer == null ? service.latest(50) : service.byCustomer(customer);
  }
}
