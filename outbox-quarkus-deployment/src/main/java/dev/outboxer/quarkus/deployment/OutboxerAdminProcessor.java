package dev.outboxer.quarkus.deployment;

import io.quarkus.arc.deployment.BuildTimeConditionBuildItem;
import io.quarkus.deployment.Capabilities;
import io.quarkus.deployment.Capability;
import io.quarkus.deployment.annotations.BuildProducer;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.builditem.CombinedIndexBuildItem;
import io.quarkus.gizmo.ClassCreator;
import io.quarkus.resteasy.reactive.spi.GeneratedJaxRsResourceBuildItem;
import io.quarkus.resteasy.reactive.spi.GeneratedJaxRsResourceGizmoAdaptor;
import org.jboss.jandex.AnnotationInstance;
import org.jboss.jandex.AnnotationTarget;
import org.jboss.jandex.ClassInfo;
import org.jboss.jandex.DotName;
import org.jboss.jandex.IndexView;

/**
 * outbox-admin (the admin API and the operator console) in Quarkus REST, when the application has
 * both. outbox-admin is a Jakarta REST application of its own ({@code OutboxAdminApplication}, at
 * {@code @ApplicationPath("outbox-admin")}, listing its classes), as the servers expect; Quarkus REST
 * serves one application per service and would take outbox-admin's as the service's: its class list
 * would hide every resource of the service (or, next to the service's own {@code Application}, fail
 * the build: "More than one Application class"). So these steps
 * <ul>
 *   <li>leave {@code OutboxAdminApplication} out of Quarkus REST (a build-time condition that is
 *       false), and with it outbox-admin's resources at their relative paths;</li>
 *   <li>mount each resource of outbox-admin (each class of the jar with a class-level {@code @Path})
 *       at the application path outbox-admin declares: a generated subclass per resource, whose
 *       {@code @Path} is the application's path followed by the resource's (the API at
 *       {@code /outbox-admin/api}, the console at {@code /outbox-admin/}), with the resource's other
 *       class-level annotations (scope, {@code @Produces}); the methods, checks and injection points
 *       are outbox-admin's own, inherited.</li>
 * </ul>
 * What it does not do: register outbox-admin's two exception mappers ({@code AdminProblemMapper},
 * {@code AdminFailureMapper}, which its {@code Application} lists and which are deliberately no
 * {@code @Provider}): the API's own refusals have their JSON bodies as everywhere, but Quarkus answers
 * its own 404/405 and an unexpected failure in its own way. (The {@code outbox.admin.*} keys are checked at
 * start by outbox-admin itself, at {@code Startup}, not here.) The path moves with
 * {@code quarkus.rest.path} (and {@code quarkus.http.root-path}), not with a {@code web.xml}. With
 * classic RESTEasy ({@code quarkus-resteasy}) instead of Quarkus REST nothing is done.
 */
public class OutboxerAdminProcessor {

  private static final DotName ADMIN_APPLICATION = DotName.createSimple("dev.outboxer.admin.OutboxAdminApplication");
  private static final DotName APPLICATION_PATH = DotName.createSimple("jakarta.ws.rs.ApplicationPath");
  private static final DotName PATH = DotName.createSimple("jakarta.ws.rs.Path");
  /** The package of the generated resources: Outboxer's, and not outbox-admin's, whose jar it does not belong to. */
  private static final String GENERATED_PACKAGE = "dev.outboxer.quarkus.admin.";

  @BuildStep
  void mountAdminInQuarkusRest(Capabilities capabilities, CombinedIndexBuildItem combinedIndex,
      BuildProducer<BuildTimeConditionBuildItem> conditions, BuildProducer<GeneratedJaxRsResourceBuildItem> generated) {
    IndexView index = combinedIndex.getIndex();
    ClassInfo application = index.getClassByName(ADMIN_APPLICATION);
    if (application == null || !capabilities.isPresent(Capability.REST)) {
      return;
    }
    AnnotationInstance applicationPath = application.declaredAnnotation(APPLICATION_PATH);
    if (applicationPath == null) {
      throw new IllegalStateException(ADMIN_APPLICATION + " has no @ApplicationPath. Indicates a bug");
    }
    String prefix = trimSlashes(applicationPath.value().asString());
    conditions.produce(new BuildTimeConditionBuildItem(application, false));

    String adminPackage = ADMIN_APPLICATION.packagePrefix();
    for (AnnotationInstance path : index.getAnnotations(PATH)) {
      if (path.target().kind() != AnnotationTarget.Kind.CLASS) {
        continue;
      }
      ClassInfo resource = path.target().asClass();
      if (!adminPackage.equals(resource.name().packagePrefix())) {
        continue;
      }
      conditions.produce(new BuildTimeConditionBuildItem(resource, false));
      String mountedPath = "/" + join(prefix, trimSlashes(path.value().asString()));
      try (ClassCreator mounted = ClassCreator.builder()
          .classOutput(new GeneratedJaxRsResourceGizmoAdaptor(generated))
          .className(GENERATED_PACKAGE + resource.simpleName() + "Mounted")
          .superClass(resource.name().toString())
          .build()) {
        mounted.addAnnotation(PATH.toString()).addValue("value", mountedPath);
        for (AnnotationInstance annotation : resource.declaredAnnotations()) {
          if (!annotation.name().equals(PATH)) {
            mounted.addAnnotation(annotation);
          }
        }
      }
    }
  }

  private static String join(String prefix, String path) {
    return path.isEmpty() ? prefix : prefix.isEmpty() ? path : prefix + "/" + path;
  }

  private static String trimSlashes(String path) {
    String trimmed = path;
    while (trimmed.startsWith("/")) {
      trimmed = trimmed.substring(1);
    }
    while (trimmed.endsWith("/")) {
      trimmed = trimmed.substring(0, trimmed.length() - 1);
    }
    return trimmed;
  }
}
