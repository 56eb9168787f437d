package dev.outboxer.quarkus.deployment;

import dev.outboxer.quarkus.InboxRecorder;
import io.quarkus.arc.deployment.BeanRegistrationPhaseBuildItem;
import io.quarkus.arc.deployment.SyntheticBeanBuildItem;
import io.quarkus.arc.processor.InjectionPointInfo;
import io.quarkus.deployment.annotations.BuildProducer;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.annotations.ExecutionTime;
import io.quarkus.deployment.annotations.Record;
import io.quarkus.deployment.builditem.CombinedIndexBuildItem;
import jakarta.inject.Singleton;
import org.jboss.jandex.DotName;
import org.jboss.jandex.Type;

/**
 * The inbox (outbox-inbox) in Quarkus, when the application has it. The inbox's beans come from its
 * bean archive as they are ({@code InboxProducer} produces the {@code Inbox} on the application's
 * data source, reads and checks its keys at CDI's {@code Startup} event, before Outboxer's own start,
 * and runs its retention on Quarkus' managed executor, the {@code @PlatformExecutor} bean of {@link
 * dev.outboxer.quarkus.QuarkusExecutor}). What the inbox's portable extension ({@code InboxUsage})
 * does elsewhere, noting whether any bean injects the inbox so that only an application that uses
 * it is asked for its tables, ArC does not run: this step answers from ArC's injection points
 * instead, and offers the answer as the {@code InboxUsage} bean {@code InboxProducer} injects.
 *
 * <p>Not guaranteed: an inbox looked up without an injection point ({@code CDI.current().select(...)})
 * counts as not injected, as it does with the portable extension: it is then checked at that lookup,
 * unless a key of the inbox is set.
 */
public class OutboxerInboxProcessor {

  private static final DotName INBOX = DotName.createSimple("dev.outboxer.inbox.Inbox");
  private static final DotName INBOX_PRODUCER = DotName.createSimple("dev.outboxer.inbox.InboxProducer");
  private static final DotName INBOX_USAGE = DotName.createSimple("dev.outboxer.inbox.InboxUsage");

  @BuildStep
  @Record(ExecutionTime.STATIC_INIT)
  void inboxUsage(CombinedIndexBuildItem index, BeanRegistrationPhaseBuildItem registration, InboxRecorder recorder,
      BuildProducer<SyntheticBeanBuildItem> beans) {
    if (index.getIndex().getClassByName(INBOX_PRODUCER) == null) {
      return; // no outbox-inbox in this application
    }
    boolean injected = registration.getInjectionPoints().stream().anyMatch(OutboxerInboxProcessor::injectsInbox);
    beans.produce(SyntheticBeanBuildItem.configure(INBOX_USAGE).types(Type.create(INBOX_USAGE, Type.Kind.CLASS))
        .scope(Singleton.class).unremovable().supplier(recorder.inboxUsage(injected)).done());
  }

  /** The inbox itself, or an {@code Instance} or {@code Provider} of it (ArC's programmatic lookups). */
  private static boolean injectsInbox(InjectionPointInfo point) {
    Type type = point.getType();
    if (point.isProgrammaticLookup() && type.kind() == Type.Kind.PARAMETERIZED_TYPE
        && !type.asParameterizedType().arguments().isEmpty()) {
      type = type.asParameterizedType().arguments().get(0);
    }
    return type.name().equals(INBOX);
  }
}
