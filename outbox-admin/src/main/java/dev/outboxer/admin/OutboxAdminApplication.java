package dev.outboxer.admin;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;
import java.util.Set;

/**
 * The admin application: the JSON API under {@code api/} and the console at its root, at {@code
 * /outbox-admin} in the web application. To move both, map this class to another path in the
 * application's {@code web.xml} (a servlet mapping named after this class replaces the {@code
 * ApplicationPath}, as Jakarta REST specifies).
 *
 * <p>It names its classes, so it does not take in the application's own resources. An application
 * whose own {@code Application} lists no classes takes in every resource of the WAR, these
 * included: they then answer under the application's path too, with the same checks, because the
 * checks are made by the resources themselves, not by a filter that might not be registered. The
 * exception mappers that give the server's own refusals a JSON body are registered here only, so
 * such an application keeps its own error answers.
 */
@ApplicationPath(OutboxAdminApplication.PATH)
public class OutboxAdminApplication extends Application {

  /** Where the application is mounted when not remapped: {@value}. */
  public static final String PATH = "outbox-admin";

  @Override
  public Set<Class<?>> getClasses() {
    return Set.of(OutboxAdminResource.class, OutboxConsoleResource.class, AdminProblemMapper.class,
        AdminFailureMapper.class);
  }
}
