package dev.outboxer.quarkus.deployment;

import dev.outboxer.Outboxed;
import dev.outboxer.quarkus.OutboxedTypes;
import dev.outboxer.quarkus.OutboxerRecorder;
import dev.outboxer.quarkus.OutboxerStart;
import dev.outboxer.quarkus.QuarkusExecutor;
import io.quarkus.arc.deployment.AdditionalBeanBuildItem;
import io.quarkus.arc.deployment.ExcludedTypeBuildItem;
import io.quarkus.arc.deployment.ObserverTransformerBuildItem;
import io.quarkus.arc.deployment.SyntheticBeanBuildItem;
import io.quarkus.arc.deployment.UnremovableBeanBuildItem;
import io.quarkus.arc.processor.ObserverTransformer;
import io.quarkus.deployment.annotations.BuildProducer;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.annotations.ExecutionTime;
import io.quarkus.deployment.annotations.Record;
import io.quarkus.deployment.builditem.CombinedIndexBuildItem;
import io.quarkus.deployment.builditem.FeatureBuildItem;
import io.quarkus.deployment.builditem.IndexDependencyBuildItem;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Set;
import org.jboss.jandex.AnnotationInstance;
import org.jboss.jandex.AnnotationTarget;
import org.jboss.jandex.DotName;
import org.jboss.jandex.Type;

/**
 * The build steps of Outboxer's Quarkus extension: what Outboxer's CDI portable extension does at
 * deployment elsewhere, done where ArC allows it. The core's beans come from outbox-cdi's bean
 * archive as they are; these steps only
 * <ul>
 *   <li>add the extension's run-time beans ({@link OutboxerStart}, {@link QuarkusExecutor});</li>
 *   <li>find the {@code @Outboxed} types in the index and hand them to the start-time check;</li>
 *   <li>keep every Outboxer bean (ArC removes beans nothing injects; relays, relay providers and
 *       handlers are looked up by name at run time);</li>
 *   <li>leave out what ArC cannot or must not run: the producer that reads the portable extension's
 *       result (replaced by {@link OutboxerStart}'s), the EJB timer bean, and the core's observers
 *       of the application scope's start and end, which ArC fires at static initialisation, before
 *       the data sources; {@link OutboxerStart} starts and stops the core at Quarkus' start and
 *       shutdown instead.</li>
 * </ul>
 */
public class OutboxerProcessor {

  static final String FEATURE = "outboxer";

  private static final DotName OUTBOXED = DotName.createSimple(Outboxed.class);
  private static final String OUTBOX_RUNTIME = "dev.outboxer.cdi.internal.work.OutboxRuntime";
  /** OutboxRuntime's observers of @Initialized / @BeforeDestroyed(ApplicationScoped.class). */
  private static final Set<String> APPLICATION_SCOPE_OBSERVERS = Set.of("onStart", "onStop");

  @BuildStep
  FeatureBuildItem feature() {
    return new FeatureBuildItem(FEATURE);
  }

  /** The API's qualifier ({@code @OutboxPersistence}) and annotations must be known to ArC: the API jar has no beans.xml. */
  @BuildStep
  IndexDependencyBuildItem indexApi() {
    return new IndexDependencyBuildItem("dev.outboxer", "outbox-api");
  }

  @BuildStep
  void beans(BuildProducer<AdditionalBeanBuildItem> additional, BuildProducer<UnremovableBeanBuildItem> unremovable,
      BuildProducer<ExcludedTypeBuildItem> excluded) {
    additional.produce(AdditionalBeanBuildItem.builder().addBeanClasses(OutboxerStart.class, QuarkusExecutor.class)
        .setUnremovable().build());
    unremovable.produce(new UnremovableBeanBuildItem(bean -> bean.getBeanClass().toString().startsWith("dev.outboxer.")));
    excluded.produce(new ExcludedTypeBuildItem("dev.outboxer.cdi.internal.cdi.ConfigurationProducer"));
    excluded.produce(new ExcludedTypeBuildItem("dev.outboxer.cdi.internal.ejb.**"));
  }

  @BuildStep
  ObserverTransformerBuildItem startAtQuarkusStart() {
    return new ObserverTransformerBuildItem(new ObserverTransformer() {
      @Override
      public boolean appliesTo(Type observedType, Set<AnnotationInstance> qualifiers) {
        return true;
      }

      @Override
      public void transform(TransformationContext context) {
        if (context.getMethod() != null
            && context.getMethod().declaringClass().name().toString().equals(OUTBOX_RUNTIME)
            && APPLICATION_SCOPE_OBSERVERS.contains(context.getMethod().name())) {
          context.veto();
        }
      }
    });
  }

  @BuildStep
  @Record(ExecutionTime.STATIC_INIT)
  SyntheticBeanBuildItem outboxedTypes(CombinedIndexBuildItem index, OutboxerRecorder recorder) {
    List<String> types = index.getIndex().getAnnotations(OUTBOXED).stream()
        .filter(annotation -> annotation.target().kind() == AnnotationTarget.Kind.CLASS)
        .map(annotation -> annotation.target().asClass().name().toString())
        .distinct().sorted().toList();
    return SyntheticBeanBuildItem.configure(OutboxedTypes.class).scope(Singleton.class).unremovable()
        .supplier(recorder.outboxedTypes(types)).done();
  }
}
