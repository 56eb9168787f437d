package dev.outboxer.admin;

import dev.outboxer.OutboxAdmin;
import dev.outboxer.OutboxException;
import dev.outboxer.UnknownOutboxException;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.util.List;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * The JSON API, under {@code api/}. Every method first passes {@link AdminGuard}; a change is then
 * logged on {@code dev.outboxer.admin.audit} at INFO with the caller, the outbox, what was asked and
 * how many messages it changed.
 */
@Path("api")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class OutboxAdminResource {

  private static final Logger AUDIT = Logger.getLogger("dev.outboxer.admin.audit");

  @Inject OutboxAdmin admin;
  @Inject AdminSettings settings;
  @Context SecurityContext security;
  @Context HttpHeaders headers;

  /** @return every configured outbox with its counts and lag */
  @GET
  @Path("outboxes")
  public List<OutboxView> outboxes() {
    read();
    return answer(() -> admin.outboxes().stream().map(name -> OutboxView.of(name, admin.counts(name))).toList());
  }

  /** @return one outbox's counts and lag */
  @GET
  @Path("outboxes/{outbox}")
  public OutboxView outbox(@PathParam("outbox") String outbox) {
    read();
    requireKnown(outbox);
    return answer(() -> OutboxView.of(outbox, admin.counts(outbox)));
  }

  /** @return the outbox's partitions with owner node, fencing token and last run */
  @GET
  @Path("outboxes/{outbox}/partitions")
  public List<PartitionView> partitions(@PathParam("outbox") String outbox) {
    read();
    requireKnown(outbox);
    return answer(() -> admin.partitions(outbox).stream().map(PartitionView::of).toList());
  }

  /** @return the groups whose oldest pending message waits for a retry, soonest retry first */
  @GET
  @Path("outboxes/{outbox}/blocked-groups")
  public List<BlockedGroupView> blockedGroups(@PathParam("outbox") String outbox,
      @QueryParam("limit") @DefaultValue("100") int limit) {
    read();
    checkLimit(limit);
    requireKnown(outbox);
    return answer(() -> admin.blockedGroups(outbox, limit).stream().map(BlockedGroupView::of).toList());
  }

  /** @return a page of dead messages, oldest id first, of one group if {@code group} is given */
  @GET
  @Path("outboxes/{outbox}/dead")
  public DeadPage dead(@PathParam("outbox") String outbox, @QueryParam("group") String group,
      @QueryParam("after") @DefaultValue("0") long after,
      @QueryParam("limit") @DefaultValue("" + AdminKeys.DEFAULT_PAGE_SIZE) int limit) {
    read();
    checkLimit(limit);
    requireKnown(outbox);
    List<DeadMessageView> page = answer(() -> admin.dead(outbox, group == null || group.isEmpty() ? null : group,
        after, limit).stream().map(DeadMessageView::of).toList());
    return new DeadPage(page, page.size() < limit ? null : page.get(page.size() - 1).id());
  }

  /** Retries one dead message (it is relayed again under a new id); 404 if it is not a dead message. */
  @POST
  @Path("outboxes/{outbox}/messages/{id}/retry")
  public ChangeResult retryOne(@PathParam("outbox") String outbox, @PathParam("id") long id) {
    String caller = change();
    return audited(caller, outbox, "retry", "dead message " + id, () -> notFoundIfNone(id,
        admin.retryDead(outbox, id)));
  }

  /** Discards one pending or dead message for good; 404 if there is no such message. */
  @DELETE
  @Path("outboxes/{outbox}/messages/{id}")
  public ChangeResult discardOne(@PathParam("outbox") String outbox, @PathParam("id") long id) {
    String caller = change();
    return audited(caller, outbox, "discard", "message " + id, () -> notFoundIfNone(id,
        admin.discard(outbox, id) ? 1 : 0));
  }

  /** Retries the dead messages of a list of ids, or every dead message of a group. */
  @POST
  @Path("outboxes/{outbox}/retry")
  @Consumes(MediaType.APPLICATION_JSON)
  public ChangeResult retry(@PathParam("outbox") String outbox, Selection selection) {
    String caller = change();
    return byGroup(selection)
        ? audited(caller, outbox, "retry", "dead messages of group '" + selection.group + "'",
            () -> admin.retryDeadGroup(outbox, selection.group))
        : audited(caller, outbox, "retry", "dead messages " + selection.ids,
            () -> admin.retryDead(outbox, ids(selection)));
  }

  /** Discards a list of pending or dead messages, or every dead message of a group. */
  @POST
  @Path("outboxes/{outbox}/discard")
  @Consumes(MediaType.APPLICATION_JSON)
  public ChangeResult discard(@PathParam("outbox") String outbox, Selection selection) {
    String caller = change();
    return byGroup(selection)
        ? audited(caller, outbox, "discard", "dead messages of group '" + selection.group + "'",
            () -> admin.discardDeadGroup(outbox, selection.group))
        : audited(caller, outbox, "discard", "messages " + selection.ids,
            () -> admin.discardAll(outbox, ids(selection)));
  }

  private void read() {
    AdminGuard.check(security, headers, settings.role(), false);
  }

  private String change() {
    return AdminGuard.check(security, headers, settings.role(), true);
  }

  private ChangeResult audited(String caller, String outbox, String action, String what, Supplier<Integer> work) {
    int changed;
    try {
      requireKnown(outbox);
      changed = answer(work);
    } catch (WebApplicationException refused) {
      AUDIT.info(() -> "outbox-admin: " + caller + " asked to " + action + " " + what + " of outbox '" + outbox
          + "': refused (" + refused.getResponse().getStatus() + ")");
      throw refused;
    }
    AUDIT.info(() -> "outbox-admin: " + caller + " asked to " + action + " " + what + " of outbox '" + outbox + "': "
        + changed + " message(s) changed");
    return new ChangeResult(action, changed);
  }

  private static int notFoundIfNone(long id, int changed) {
    if (changed == 0) {
      throw problem(Response.Status.NOT_FOUND, "No message " + id + " to change: it was relayed, retried (a retried"
          + " message gets a new id) or discarded already, or never existed");
    }
    return changed;
  }

  /**
   * Refuses an outbox name that is not configured with 404 before OutboxAdmin is called with it.
   * OutboxAdmin would refuse it too, but by throwing from its {@code @Transactional} methods, and
   * Open Liberty writes an FFDC incident for every exception leaving a {@code @Transactional}
   * method: a mistyped name in a URL is an expected error and must not leave one.
   */
  private void requireKnown(String outbox) {
    List<String> known = admin.outboxes();
    if (!known.contains(outbox)) {
      throw problem(Response.Status.NOT_FOUND, "No outbox named '" + outbox + "' is configured: set outbox." + outbox
          + ".relay to create it. Configured outboxes: " + new TreeSet<>(known));
    }
  }

  /** Runs an OutboxAdmin call, turning its refusals into JSON answers with a status. */
  private static <T> T answer(Supplier<T> call) {
    try {
      return call.get();
    } catch (UnknownOutboxException e) {
      throw problem(Response.Status.NOT_FOUND, e.getMessage());
    } catch (IllegalArgumentException e) {
      throw problem(Response.Status.BAD_REQUEST, e.getMessage());
    } catch (OutboxException e) {
      throw problem(Response.Status.CONFLICT, e.getMessage());
    }
  }

  private static void checkLimit(int limit) {
    if (limit < 1 || limit > AdminKeys.MAX_PAGE_SIZE) {
      throw problem(Response.Status.BAD_REQUEST, "limit=" + limit + " is out of range: ask for 1 to "
          + AdminKeys.MAX_PAGE_SIZE);
    }
  }

  /** @return whether the selection names a group (else it lists ids); refuses one that is neither or both */
  private static boolean byGroup(Selection selection) {
    boolean hasIds = selection != null && selection.ids != null && !selection.ids.isEmpty();
    boolean hasGroup = selection != null && selection.group != null && !selection.group.isEmpty();
    if (hasIds == hasGroup) {
      throw problem(Response.Status.BAD_REQUEST, "Send either {\"ids\": [...]} with at least one id or"
          + " {\"group\": \"...\"}, not both and not neither");
    }
    if (hasIds && selection.ids.contains(null)) {
      throw problem(Response.Status.BAD_REQUEST, "ids must be numbers, not null");
    }
    return hasGroup;
  }

  private static long[] ids(Selection selection) {
    return selection.ids.stream().mapToLong(Long::longValue).toArray();
  }

  private static WebApplicationException problem(Response.Status status, String error) {
    return new WebApplicationException(Response.status(status).type(MediaType.APPLICATION_JSON_TYPE)
        .entity(new Problem(status.getStatusCode(), error)).build());
  }
}
