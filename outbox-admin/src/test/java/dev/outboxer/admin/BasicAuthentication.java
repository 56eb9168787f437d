package dev.outboxer.admin;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.SecurityContext;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.Base64;
import java.util.Map;
import java.util.Set;

/**
 * Plays the application server's part in the tests: checks HTTP Basic credentials against a fixed
 * user registry and puts the caller and its roles into the request's SecurityContext, as an
 * application server with a basic registry does. A request without (valid) credentials stays
 * anonymous, so the resources' own checks decide.
 */
@PreMatching
@Priority(Priorities.AUTHENTICATION)
final class BasicAuthentication implements ContainerRequestFilter {

  static final String PASSWORD = "secret";

  /** user to roles */
  private static final Map<String, Set<String>> USERS = Map.of(
      "operator", Set.of("outbox-admin"),
      "viewer", Set.of("staff"),
      "lead", Set.of("ops"));

  @Override
  public void filter(ContainerRequestContext request) {
    String header = request.getHeaderString(HttpHeaders.AUTHORIZATION);
    if (header == null || !header.startsWith("Basic ")) {
      return;
    }
    String[] credentials = new String(Base64.getDecoder().decode(header.substring(6)), StandardCharsets.UTF_8)
        .split(":", 2);
    Set<String> roles = USERS.get(credentials[0]);
    if (roles == null || credentials.length < 2 || !PASSWORD.equals(credentials[1])) {
      return;
    }
    Principal caller = () -> credentials[0];
    request.setSecurityContext(new SecurityContext() {
      @Override
      public Principal getUserPrincipal() {
        return caller;
      }

      @Override
      public boolean isUserInRole(String role) {
        return roles.contains(role);
      }

      @Override
      public boolean isSecure() {
        return false;
      }

      @Override
      public String getAuthenticationScheme() {
        return BASIC_AUTH;
      }
    });
  }

  static String header(String user) {
    return "Basic " + Base64.getEncoder().encodeToString((user + ":" + PASSWORD).getBytes(StandardCharsets.UTF_8));
  }
}
