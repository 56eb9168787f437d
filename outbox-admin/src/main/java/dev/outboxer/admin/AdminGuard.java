package dev.outboxer.admin;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.SecurityContext;
import java.security.Principal;

/**
 * The checks every API call passes before it touches an outbox: an authenticated caller (else
 * 401 with a Basic challenge, or for the console's script one that browsers leave to the script), in the configured role (else 403), and for a changing call the
 * header {@code X-Outbox-Admin: 1} (else 403). A browser sends a custom header only from a script
 * of the same origin (or after a CORS preflight this application never approves), so a cross-site
 * form, link or image cannot make a change with the operator's credentials.
 */
final class AdminGuard {

  private AdminGuard() {}

  /** @return the caller's name, for the audit log */
  static String check(SecurityContext security, HttpHeaders headers, String role, boolean changing) {
    Principal caller = security.getUserPrincipal();
    if (caller == null) {
      throw new WebApplicationException(Response.status(Response.Status.UNAUTHORIZED)
          .header(HttpHeaders.WWW_AUTHENTICATE, challenge(headers))
          .type(MediaType.APPLICATION_JSON_TYPE)
          .entity(new Problem(401, "The outbox admin API needs an authenticated caller in the role '" + role + "'"))
          .build());
    }
    if (!security.isUserInRole(role)) {
      throw refused("'" + caller.getName() + "' is not in the role '" + role + "' that the outbox admin API needs");
    }
    if (changing && !AdminProtocol.CSRF_VALUE.equals(headers.getHeaderString(AdminProtocol.CSRF_HEADER))) {
      throw refused("A call that changes an outbox needs the header " + AdminProtocol.CSRF_HEADER + ": "
          + AdminProtocol.CSRF_VALUE + " (it keeps other sites from making changes with your credentials)");
    }
    return caller.getName();
  }

  /**
   * Basic, except for the console's own script (it says so with {@code X-Requested-With:
   * XMLHttpRequest}): a browser answers a Basic challenge, even one to a script's request, with its
   * own sign-in dialog, which hides the console's sign-in form, and in a headless browser leaves the
   * request hanging. The console gets the same 401 under a scheme no browser handles, and shows its
   * form; it then sends Basic credentials itself.
   */
  private static String challenge(HttpHeaders headers) {
    boolean script = AdminProtocol.SCRIPT_VALUE.equals(headers.getHeaderString(AdminProtocol.SCRIPT_HEADER));
    return (script ? AdminProtocol.SCRIPT_SCHEME : "Basic") + " realm=\"" + AdminProtocol.REALM + "\"";
  }

  private static WebApplicationException refused(String why) {
    return new WebApplicationException(Response.status(Response.Status.FORBIDDEN).type(MediaType.APPLICATION_JSON_TYPE)
        .entity(new Problem(403, why)).build());
  }
}
