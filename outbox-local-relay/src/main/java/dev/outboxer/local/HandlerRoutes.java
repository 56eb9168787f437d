package dev.outboxer.local;

import static dev.outboxer.local.LocalRelayProvider.HANDLER;
import static dev.outboxer.local.LocalRelayProvider.NAME;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.Outboxed;
import dev.outboxer.spi.ConfigKeyNames;
import dev.outboxer.spi.RelayContext;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.util.TypeLiteral;
import java.lang.annotation.Annotation;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which handler bean takes which message type of one outbox: found from bean metadata only (no
 * instance is created), so that it can run at deployment. Every problem is collected, each naming
 * the outbox, the beans involved and the fix.
 *
 * @param byType the handler of each message type that has one of its own
 * @param everyType the handler of the other types, or {@code null}
 */
record HandlerRoutes(Map<String, Route> byType, Route everyType) {

  /** The type that {@code getBeans} needs to find {@code OutboxMessageHandler<X>} beans of every X. */
  static final Type ANY_MESSAGE_HANDLER = new TypeLiteral<OutboxMessageHandler<?>>() {}.getType();

  /**
   * One handler bean and what it takes.
   *
   * @param bean the bean
   * @param messageClass the message class of an {@link OutboxMessageHandler}; {@code null} for an
   *     {@link OutboxHandler}
   * @param beanType the bean type to look the bean up by
   * @param reason how it was selected, for error messages
   */
  record Route(Bean<?> bean, Class<?> messageClass, Type beanType, String reason) {
    String describe() {
      return (bean.getName() != null ? "'" + bean.getName() + "' (" + bean.getBeanClass().getName() + ")"
          : bean.getBeanClass().getName()) + ", " + reason;
    }
  }

  /** The route of a message type: its own handler, else the one for every type, else empty. */
  Optional<Route> find(String type) {
    Route route = byType.get(type);
    return Optional.ofNullable(route != null ? route : everyType);
  }

  /**
   * Finds the handlers of one outbox among the application's beans, from their metadata only, and
   * adds every problem found to {@code problems}.
   */
  static HandlerRoutes discover(BeanManager beans, RelayContext context, LocalSettings settings,
      List<OutboxConfigurationException> problems) {
    String outbox = context.outbox();
    Set<Bean<?>> candidates = new LinkedHashSet<>(beans.getBeans(OutboxHandler.class, Any.Literal.INSTANCE));
    candidates.addAll(beans.getBeans(ANY_MESSAGE_HANDLER, Any.Literal.INSTANCE));

    Map<String, List<Route>> byType = new LinkedHashMap<>();
    List<Route> everyType = new ArrayList<>();
    Set<String> outboxesWithHandlers = new TreeSet<>();
    for (Bean<?> bean : candidates) {
      HandlesOutbox annotation = annotationOf(bean);
      if (annotation != null && !annotation.value().isEmpty()) {
        outboxesWithHandlers.add(annotation.value());
        if (!annotation.value().equals(outbox)) {
          // Another outbox's handler: its problems are reported when that outbox is checked.
          continue;
        }
      }
      Optional<Candidate> candidate = Candidate.of(bean, outbox, problems);
      if (candidate.isEmpty()) {
        continue;
      }
      Candidate handler = candidate.get();
      if (handler.annotatedOutbox().isEmpty() && bean.getName() == null) {
        problems.add(new OutboxConfigurationException(LocalRelayProvider.keyOf(outbox), "The handler bean "
            + bean.getBeanClass().getName() + " is selected by nothing: it has no @HandlesOutbox, no @Named name"
            + " for " + LocalRelayProvider.handlerKey(outbox)
            + (handler.messageClass() != null ? ", and its message class " + handler.messageClass().getName()
                + " has no @Outboxed" : "")
            + ". Add @HandlesOutbox(\"" + outbox + "\") to it."));
        continue;
      }
      if (handler.annotatedOutbox().filter(outbox::equals).isPresent()) {
        add(handler.route(annotation != null && !annotation.value().isEmpty() ? "selected by @HandlesOutbox"
            : "selected by @Outboxed(\"" + outbox + "\") of " + handler.messageClass().getName()),
            handler.type(), byType, everyType);
      }
    }

    String handlerKey = LocalRelayProvider.handlerKey(outbox);
    for (String name : settings.handlerNames()) {
      Set<Bean<?>> named = beans.getBeans(name);
      Optional<Bean<?>> handlerBean = named.stream().filter(candidates::contains).findFirst();
      if (handlerBean.isEmpty()) {
        problems.add(new OutboxConfigurationException(handlerKey, handlerKey + " names '" + name + "', which is "
            + (named.isEmpty() ? "no bean" + didYouMean(name, candidates)
                : "a bean of class " + named.iterator().next().getBeanClass().getName() + ", not a handler")
            + ": name a @Named CDI bean implementing " + OutboxHandler.class.getName() + " or "
            + OutboxMessageHandler.class.getName()));
        continue;
      }
      Candidate.of(handlerBean.get(), outbox, problems).ifPresent(handler -> {
        // A raw handler named here takes every type of this outbox, unless its @HandlesOutbox says one for it.
        String type = handler.annotatedOutbox().filter(outbox::equals).isPresent() || handler.messageClass() != null
            ? handler.type() : null;
        add(handler.route("named in " + handlerKey), type, byType, everyType);
      });
    }

    Map<String, Route> routes = new LinkedHashMap<>();
    byType.forEach((type, handlers) -> {
      if (handlers.size() > 1) {
        problems.add(conflict(outbox, "message type '" + type + "'", handlers));
      }
      routes.put(type, handlers.get(0));
    });
    if (everyType.size() > 1) {
      problems.add(conflict(outbox, "every message type", everyType));
    }
    if (routes.isEmpty() && everyType.isEmpty()) {
      String nearest = ConfigKeyNames.nearest(outbox, outboxesWithHandlers).orElse(null);
      problems.add(new OutboxConfigurationException(handlerKey, "Outbox '" + outbox + "' has"
          + " relay=local but no handler: add a CDI bean implementing " + OutboxHandler.class.getName()
          + " with @HandlesOutbox(\"" + outbox + "\"), or " + OutboxMessageHandler.class.getName()
          + "<T> for a message class T that is @Outboxed(\"" + outbox + "\"), or name a @Named handler bean in "
          + handlerKey + "."
          + (nearest != null ? " There are handlers for outbox '" + nearest + "': a typo in @HandlesOutbox?" : "")));
    }
    return new HandlerRoutes(Map.copyOf(routes), everyType.isEmpty() ? null : everyType.get(0));
  }

  /** Every route: the handlers of the types, then the handler of every type. */
  List<Route> all() {
    List<Route> all = new ArrayList<>(byType.values());
    if (everyType != null) {
      all.add(everyType);
    }
    return all;
  }

  private static void add(Route route, String type, Map<String, List<Route>> byType, List<Route> everyType) {
    List<Route> target = type == null ? everyType : byType.computeIfAbsent(type, key -> new ArrayList<>());
    // The same bean selected twice (annotated and named in the configuration) is one handler, not a conflict.
    if (target.stream().noneMatch(existing -> existing.bean().equals(route.bean()))) {
      target.add(route);
    }
  }

  private static OutboxConfigurationException conflict(String outbox, String what, List<Route> handlers) {
    StringBuilder text = new StringBuilder("Outbox '" + outbox + "' has " + handlers.size() + " handlers for " + what
        + ":");
    handlers.forEach(route -> text.append(" ").append(route.describe()).append(";"));
    text.append(" a message must have exactly one handler, so that its work is done once. Remove one, or give one"
        + " of them another type with @HandlesOutbox(value = \"" + outbox + "\", type = \"...\").");
    return new OutboxConfigurationException(LocalRelayProvider.keyOf(outbox), text.toString());
  }

  private static HandlesOutbox annotationOf(Bean<?> bean) {
    for (Annotation qualifier : bean.getQualifiers()) {
      if (qualifier instanceof HandlesOutbox handles) {
        return handles;
      }
    }
    return null;
  }

  private static String didYouMean(String name, Set<Bean<?>> handlers) {
    Set<String> names = new TreeSet<>();
    handlers.stream().map(Bean::getName).filter(n -> n != null && !n.isEmpty()).forEach(names::add);
    String nearest = ConfigKeyNames.nearest(name, names).orElse(null);
    return (nearest != null ? " (did you mean '" + nearest + "'?)" : "")
        + (names.isEmpty() ? "" : "; named handler beans: " + names);
  }

  /**
   * A handler bean as its metadata describes it.
   *
   * @param annotatedOutbox the outbox it serves by annotation (explicit, or its message class's
   *     {@code @Outboxed}), if any
   * @param type the message type it takes, or {@code null} for every type
   */
  private record Candidate(Bean<?> bean, Class<?> messageClass, Type beanType, Optional<String> annotatedOutbox,
      String type) {

    Route route(String reason) {
      return new Route(bean, messageClass, beanType, reason);
    }

    static Optional<Candidate> of(Bean<?> bean, String outbox, List<OutboxConfigurationException> problems) {
      HandlesOutbox annotation = annotationOf(bean);
      boolean raw = bean.getTypes().contains(OutboxHandler.class);
      ParameterizedType typed = null;
      for (Type type : bean.getTypes()) {
        if (type instanceof ParameterizedType parameterized && parameterized.getRawType() == OutboxMessageHandler.class) {
          typed = parameterized;
        }
      }
      String beanName = bean.getBeanClass().getName();
      String key = LocalRelayProvider.keyOf(outbox);
      if (raw && typed != null) {
        problems.add(new OutboxConfigurationException(key, "The handler bean " + beanName + " implements both "
            + OutboxHandler.class.getSimpleName() + " and " + OutboxMessageHandler.class.getSimpleName()
            + ": the local relay could not tell which to call. Implement one of them."));
        return Optional.empty();
      }
      String annotatedOutbox = annotation == null || annotation.value().isEmpty() ? null : annotation.value();
      String annotatedType = annotation == null || annotation.type().isEmpty() ? null : annotation.type();
      if (raw) {
        if (annotation != null && annotatedOutbox == null) {
          problems.add(new OutboxConfigurationException(key, "The handler bean " + beanName + " has @HandlesOutbox"
              + " without an outbox name: an " + OutboxHandler.class.getSimpleName() + " takes raw records of any"
              + " type, so it must name its outbox, e.g. @HandlesOutbox(\"" + outbox + "\")."));
          return Optional.empty();
        }
        return Optional.of(new Candidate(bean, null, OutboxHandler.class, Optional.ofNullable(annotatedOutbox),
            annotatedType));
      }
      if (typed == null) {
        return Optional.empty();
      }
      Type argument = typed.getActualTypeArguments()[0];
      Class<?> messageClass = argument instanceof Class<?> plain ? plain
          : argument instanceof ParameterizedType generic && generic.getRawType() instanceof Class<?> rawClass ? rawClass
          : null;
      if (messageClass == null) {
        problems.add(new OutboxConfigurationException(key, "The handler bean " + beanName + " is an "
            + OutboxMessageHandler.class.getSimpleName() + "<" + argument.getTypeName() + ">: the local relay needs"
            + " the message class to decode payloads into. Implement it for a concrete class, e.g. "
            + OutboxMessageHandler.class.getSimpleName() + "<OrderPlaced>."));
        return Optional.empty();
      }
      Outboxed outboxed = messageClass.getAnnotation(Outboxed.class);
      String servedOutbox = annotatedOutbox != null ? annotatedOutbox : outboxed != null ? outboxed.value() : null;
      String type = annotatedType != null ? annotatedType
          : outboxed != null && !outboxed.type().isEmpty() ? outboxed.type() : messageClass.getSimpleName();
      return Optional.of(new Candidate(bean, messageClass, typed, Optional.ofNullable(servedOutbox), type));
    }
  }
}
