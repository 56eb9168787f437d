package dev.outboxer.admin;

import dev.outboxer.OutboxAdmin;
import dev.outboxer.OutboxException;
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
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import jakarta.ws.rs.core.UriInfo;
import java.io.InputStream;
import java.util.List;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * The JSON API, under {@code api/}. Every method first passes {@link AdminGuard}, before it reads
 * anything the request gives; then {@link AdminInput} reads path ids, paging parameters and the
 * bulk body strictly (a value that is not exactly what is asked for is refused with 400, 413 or 415
 * naming it, never coerced). A change is then logged on {@code dev.outboxer.admin.audit} at INFO
 * with the caller, the outbox, what was asked (a long id list by its count and first ids) and how
 * many messages it changed.
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
  @Context UriInfo uri;

  /** @return every configured outbox with its counts and lag */
  @GET
  @Path("outboxes")
  public List<OutboxView> outboxes() {
    read();
    return answer(() -> admin.outboxes().stream().map(name -> OutboxView.of(name, admin.counts(name),
        admin.deadRetention(name))).toList());
  }

  /** @return one outbox's counts and lag */
  @GET
  @Path("outboxes/{outbox}")
  public OutboxView outbox(@PathParam("outbox") String outbox) {
    read();
    requireKnown(outbox);
    return answer(() -> OutboxView.of(outbox, admin.counts(outbox), admin.deadRetention(outbox)));
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
      @QueryParam("limit") @DefaultValue("100") String limitParameter) {
    read();
    AdminInput.once(uri, "limit");
    int limit = AdminInput.limit(limitParameter);
    requireKnown(outbox);
    return answer(() -> admin.blockedGroups(outbox, limit).stream().map(BlockedGroupView::of).toList());
  }

  /** @return a page of dead messages, oldest id first, of one group if {@code group} is given */
  @GET
  @Path("outboxes/{outbox}/dead")
  public DeadPage dead(@PathParam("outbox") String outbox, @QueryParam("group") String group,
      @QueryParam("after") @DefaultValue("0") String afterParameter,
      @QueryParam("limit") @DefaultValue("" + AdminProtocol.DEFAULT_PAGE_SIZE) String limitParameter) {
    read();
    AdminInput.once(uri, "group", "after", "limit");
    long after = AdminInput.after(afterParameter);
    int limit = AdminInput.limit(limitParameter);
    String groupKey = group == null || group.isEmpty() ? null : AdminInput.groupKey(group);
    requireKnown(outbox);
    List<DeadMessageView> page = answer(() -> admin.dead(outbox, groupKey, after, limit).stream()
        .map(DeadMessageView::of).toList());
    return new DeadPage(page, page.size() < limit ? null : page.get(page.size() - 1).id());
  }

  /** Retries one dead message (it is relayed again under a new id); 404 if it is not a dead message. */
  @POST
  @Path("outboxes/{outbox}/messages/{id}/retry")
  public ChangeResult retryOne(@PathParam("outbox") String outbox, @PathParam("id") String idSegment) {
    String caller = change();
    long id = AdminInput.messageId(idSegment);
    return audited(caller, outbox, "retry", "dead message " + id, () -> notFoundIfNone(id,
        admin.retryDead(outbox, id)));
  }

  /** Discards one pending or dead message for good; 404 if there is no such message. */
  @DELETE
  @Path("outboxes/{outbox}/messages/{id}")
  public ChangeResult discardOne(@PathParam("outbox") String outbox, @PathParam("id") String idSegment) {
    String caller = change();
    long id = AdminInput.messageId(idSegment);
    return audited(caller, outbox, "discard", "message " + id, () -> notFoundIfNone(id,
        admin.discard(outbox, id) ? 1 : 0));
  }

  /**
   * Retries the dead messages of a list of ids, or every dead message of a group. The body is
   * taken as bytes (no {@code @Consumes}, no JSON-B) so that the caller is checked before it is
   * read, and so that it is read strictly by {@link AdminInput#selection}.
   */
  @POST
  @Path("outboxes/{outbox}/retry")
  public ChangeResult retry(@PathParam("outbox") String outbox, InputStream body) {
    String caller = change();
    Selection selection = AdminInput.selection(headers, body);
    return selection.group != null
        ? audited(caller, outbox, "retry", "dead messages of group '" + Problem.printable(selection.group) + "'",
            () -> admin.retryDeadGroup(outbox, selection.group))
        : audited(caller, outbox, "retry", describe("dead messages", selection.ids),
            () -> admin.retryDead(outbox, ids(selection)));
  }

  /** Discards a list of pending or dead messages, or every dead message of a group; the body as for retry. */
  @POST
  @Path("outboxes/{outbox}/discard")
  public ChangeResult discard(@PathParam("outbox") String outbox, InputStream body) {
    String caller = change();
    Selection selection = AdminInput.selection(headers, body);
    return selection.group != null
        ? audited(caller, outbox, "discard", "dead messages of group '" + Problem.printable(selection.group) + "'",
            () -> admin.discardDeadGroup(outbox, selection.group))
        : audited(caller, outbox, "discard", describe("messages", selection.ids),
            () -> admin.discardAll(outbox, ids(selection)));
  }

  /** Up to 10 ids as they are; more by their count and the first 10, so that one call makes one short audit line. */
  static String describe(String what, List<Long> ids) {
    int shown = 10;
    if (ids.size() <= shown) {
      return what + " " + ids;
    }
    String first = ids.subList(0, shown).toString();
    return ids.size() + " " + what + " " + first.substring(0, first.length() - 1) + ", ... " + (ids.size() - shown)
        + " more]";
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
      AUDIT.info(() -> "outbox-admin: " + caller + " asked to " + action + " " + what + " of outbox '"
          + Problem.printable(outbox) + "': refused (" + refused.getResponse().getStatus() + ")");
      throw refused;
    }
    AUDIT.info(() -> "outbox-admin: " + caller + " asked to " + action + " " + what + " of outbox '"
        + Problem.printable(outbox) + "': " + changed + " message(s) changed");
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
   * OutboxAdmin refuses it too (before its transactional work starts), but the resource does not
   * rely on how OutboxAdmin is built: Open Liberty writes an FFDC incident for every exception
   * leaving a {@code @Transactional} method, and a mistyped name in a URL is an expected error that
   * must not leave one.
   */
  private void requireKnown(String outbox) {
    List<String> known = admin.outboxes();
    if (!known.contains(outbox)) {
      String name = Problem.printable(outbox);
      throw problem(Response.Status.NOT_FOUND, "No outbox named '" + name + "' is configured: set outbox." + name
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

  private static long[] ids(Selection selection) {
    return selection.ids.stream().mapToLong(Long::longValue).toArray();
  }

  private static WebApplicationException problem(Response.Status status, String error) {
    return Problem.refusal(status, error);
  }
}
