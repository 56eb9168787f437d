package dev.outboxer.cdi.internal.publish;

import jakarta.json.spi.JsonProvider;
import jakarta.json.stream.JsonParser;
import java.io.StringReader;
import java.lang.annotation.Annotation;
import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Finds state the JSON-B codec would drop without a word: an object JSON-B wrote as {@code {}}
 * although its class keeps state (instance fields) and shows JSON-B no property at all (no public
 * getter or field, no JSON-B annotation). Such an object is always written as {@code {}}, whatever
 * its values, and relayed so.
 *
 * <p>Cheap and conservative. Only JSON holding the text {@code {}} is looked at (Yasson writes no
 * whitespace); then the JSON is streamed, and only the path to each empty object is followed in the
 * Java object graph (public getters and fields, list elements, map values), the way JSON-B wrote
 * it. Where the two cannot be matched for sure (an adapter, a serializer, a renamed or custom
 * property, a map written as entries, a JDK type), nothing is refused. Empty objects the application
 * means are not refused: an empty map or collection, an object of a class without instance state,
 * one whose visible properties are all null, one whose state is {@code transient} or marked
 * {@code @JsonbTransient}, records, and anything JSON-B is told about by an annotation. If the check itself
 * fails, the payload is accepted, as it was before the check existed.
 */
final class UnseenState {

  private static final Logger LOG = Logger.getLogger(UnseenState.class.getName());

  private static final Object UNKNOWN = new Object();
  private static final String JSONB_ANNOTATIONS = "jakarta.json.bind.annotation.";

  /** The codec refuses the payload: {@link #path} names where, the message what and why. */
  static final class Dropped extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String path;

    Dropped(String path, String message) {
      super(message, null, false, false);
      this.path = path;
    }

    /** Where in the payload: {@code payload}, {@code payload.body}, {@code payload.items[1]}. */
    String path() {
      return path;
    }
  }

  private static volatile JsonProvider provider;

  private UnseenState() {}

  /**
   * @throws Dropped if the JSON holds {@code {}} for an object whose state JSON-B cannot see
   */
  static void check(Object message, String json) {
    if (json.indexOf("{}") < 0) {
      return;
    }
    Dropped dropped;
    try {
      dropped = find(message, json);
    } catch (Exception | StackOverflowError | LinkageError e) {
      LOG.log(Level.FINE, "Could not check the JSON of a " + message.getClass().getName() + " for dropped state", e);
      return;
    }
    if (dropped != null) {
      throw dropped;
    }
  }

  private static Dropped find(Object message, String json) {
    Deque<Frame> open = new ArrayDeque<>();
    try (JsonParser parser = provider().createParser(new StringReader(json))) {
      while (parser.hasNext()) {
        JsonParser.Event event = parser.next();
        Frame parent = open.peek();
        switch (event) {
          case KEY_NAME -> parent.key = parser.getString();
          case START_OBJECT, START_ARRAY -> {
            Object value = parent == null ? message : parent.next(true);
            String path = parent == null ? "payload" : parent.childPath();
            open.push(new Frame(unwrapped(value), path, event == JsonParser.Event.START_ARRAY));
          }
          case END_OBJECT -> {
            Frame done = open.pop();
            if (done.members == 0) {
              String why = Verdict.of(done.value);
              if (why != null) {
                return new Dropped(done.path, why.replace("{path}", done.path));
              }
            }
          }
          case END_ARRAY -> open.pop();
          default -> {
            if (parent != null) {
              parent.next(false);
            }
          }
        }
      }
    }
    return null;
  }

  private static JsonProvider provider() {
    JsonProvider found = provider;
    if (found == null) {
      found = JsonProvider.provider();
      provider = found;
    }
    return found;
  }

  private static Object unwrapped(Object value) {
    return value instanceof Optional<?> optional ? optional.orElse(null) : value;
  }

  /** A JSON object or array being read, with the Java value it was written from (or UNKNOWN). */
  private static final class Frame {
    final Object value;
    final String path;
    final boolean array;
    final Iterator<?> items;
    Map<String, Object> byKey;
    String key;
    int index = -1;
    int members;

    Frame(Object value, String path, boolean array) {
      this.value = value == null ? UNKNOWN : value;
      this.path = path;
      this.array = array;
      this.items = array ? items(this.value) : null;
    }

    /** Moves to the next member; returns its Java value if asked to (else null). */
    Object next(boolean wanted) {
      members++;
      if (array) {
        index++;
        Object item = items != null && items.hasNext() ? items.next() : UNKNOWN;
        return wanted ? item : null;
      }
      return wanted ? member(key) : null;
    }

    String childPath() {
      return array ? path + "[" + index + "]" : path + "." + key;
    }

    private Object member(String name) {
      if (value == UNKNOWN || name == null) {
        return UNKNOWN;
      }
      if (value instanceof Map<?, ?> map) {
        if (byKey == null) {
          byKey = new HashMap<>();
          for (Map.Entry<?, ?> entry : map.entrySet()) {
            if (byKey.put(String.valueOf(entry.getKey()), entry.getValue()) != null) {
              byKey.put(String.valueOf(entry.getKey()), UNKNOWN);
            }
          }
        }
        return byKey.getOrDefault(name, UNKNOWN);
      }
      if (!isApplicationClass(value.getClass())) {
        return UNKNOWN;
      }
      Member accessor = Properties.of(value.getClass()).resolvable.get(name);
      if (accessor == null) {
        return UNKNOWN;
      }
      try {
        return accessor instanceof Method method ? method.invoke(value) : ((Field) accessor).get(value);
      } catch (ReflectiveOperationException | RuntimeException e) {
        return UNKNOWN;
      }
    }

    private static Iterator<?> items(Object value) {
      if (value instanceof Iterable<?> iterable && !(value instanceof Map<?, ?>)) {
        return iterable.iterator();
      }
      if (value != UNKNOWN && value.getClass().isArray()) {
        int length = Array.getLength(value);
        List<Object> elements = new ArrayList<>(length);
        for (int i = 0; i < length; i++) {
          elements.add(Array.get(value, i));
        }
        return elements.iterator();
      }
      return null;
    }
  }

  /** The properties JSON-B can see on a class, as far as this check follows them. */
  private static final class Properties {
    private static final ClassValue<Properties> CACHE = new ClassValue<>() {
      @Override
      protected Properties computeValue(Class<?> type) {
        return new Properties(type);
      }
    };

    /** Public getters and fields, also those this check does not follow. */
    final int visible;
    /** By JSON name: the getters and fields written as JSON-B's defaults write them. */
    final Map<String, Member> resolvable;

    private Properties(Class<?> type) {
      Map<String, Member> found = new HashMap<>();
      int count = 0;
      if (type.isRecord()) {
        for (RecordComponent component : type.getRecordComponents()) {
          count++;
          follow(found, component.getName(), component.getAccessor());
        }
      }
      for (Field field : type.getFields()) {
        if (!Modifier.isStatic(field.getModifiers()) && !Modifier.isTransient(field.getModifiers())) {
          count++;
          follow(found, field.getName(), field);
        }
      }
      for (Method method : type.getMethods()) {
        String property = propertyOf(method);
        if (property != null) {
          count++;
          follow(found, property, method);
        }
      }
      visible = count;
      resolvable = Collections.unmodifiableMap(found);
    }

    static Properties of(Class<?> type) {
      return CACHE.get(type);
    }

    /** Keeps a property to follow only if nothing about it is customised; a getter wins over a field. */
    private static void follow(Map<String, Member> found, String name, Member accessor) {
      if (hasJsonbAnnotation((AccessibleObject) accessor)) {
        found.put(name, null);
        return;
      }
      if (found.containsKey(name) && (found.get(name) == null || found.get(name) instanceof Method)) {
        return;
      }
      if (((AccessibleObject) accessor).trySetAccessible()) {
        found.put(name, accessor);
      }
    }

    /** The property a public getter reads, as JSON-B names it by default; null for other methods. */
    private static String propertyOf(Method method) {
      if (Modifier.isStatic(method.getModifiers()) || method.getParameterCount() != 0
          || method.getReturnType() == void.class || method.getDeclaringClass() == Object.class) {
        return null;
      }
      String name = method.getName();
      String rest = name.startsWith("get") ? name.substring(3) : name.startsWith("is") ? name.substring(2) : "";
      if (rest.isEmpty()) {
        return null;
      }
      if (rest.length() > 1 && Character.isUpperCase(rest.charAt(0)) && Character.isUpperCase(rest.charAt(1))) {
        return rest;
      }
      return Character.toLowerCase(rest.charAt(0)) + rest.substring(1);
    }
  }

  /** Whether an object of a class, written as {}, lost state: the description if so, else null. */
  private static final class Verdict {
    private static final ClassValue<Optional<String>> CACHE = new ClassValue<>() {
      @Override
      protected Optional<String> computeValue(Class<?> type) {
        return Optional.ofNullable(judge(type));
      }
    };

    static String of(Object value) {
      if (value == UNKNOWN || value == null) {
        return null;
      }
      return CACHE.get(value.getClass()).orElse(null);
    }

    private static String judge(Class<?> type) {
      if (!isApplicationClass(type) || Map.class.isAssignableFrom(type) || Iterable.class.isAssignableFrom(type)
          || type.isArray() || type.isEnum() || type.isRecord() || type.isHidden() || type.isSynthetic()
          || java.lang.reflect.Proxy.isProxyClass(type) || Properties.of(type).visible > 0) {
        return null;
      }
      List<String> state = new ArrayList<>();
      for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
        if (!isApplicationClass(c) || hasJsonbAnnotation(c) || (c.getPackage() != null
            && hasJsonbAnnotation(c.getPackage()))) {
          // Told something (visibility, an adapter, a serializer), or partly a JDK class: trust JSON-B.
          return null;
        }
        for (Class<?> face : c.getInterfaces()) {
          if (hasJsonbAnnotation(face)) {
            return null;
          }
        }
        for (Method method : c.getDeclaredMethods()) {
          if (hasJsonbAnnotation(method)) {
            return null;
          }
        }
        for (Field field : c.getDeclaredFields()) {
          if (hasJsonbAnnotation(field)) {
            return null;
          }
          int modifiers = field.getModifiers();
          if (!Modifier.isStatic(modifiers) && !Modifier.isTransient(modifiers) && !field.isSynthetic()) {
            state.add(field.getName());
          }
        }
      }
      if (state.isEmpty()) {
        return null;
      }
      return "the JSON-B codec writes the " + type.getName() + " at {path} as {}: its class keeps state ("
          + String.join(", ", state.subList(0, Math.min(5, state.size()))) + (state.size() > 5 ? ", ..." : "")
          + ") but shows JSON-B no property (no public getter or field, no @JsonbProperty, no @JsonbVisibility), so"
          + " that state would be dropped silently and the message relayed without it. Add public getters (or make"
          + " the fields public), or show the fields with @JsonbVisibility; mark state that is not part of the"
          + " message transient or @JsonbTransient";
    }
  }

  private static boolean hasJsonbAnnotation(java.lang.reflect.AnnotatedElement element) {
    for (Annotation annotation : element.getAnnotations()) {
      if (annotation.annotationType().getName().startsWith(JSONB_ANNOTATIONS)) {
        return true;
      }
    }
    return false;
  }

  /** Not the JDK's, nor a Jakarta API's: JSON-B has its own ways with those. */
  private static boolean isApplicationClass(Class<?> type) {
    ClassLoader loader = type.getClassLoader();
    if (loader == null || loader == ClassLoader.getPlatformClassLoader()) {
      return false;
    }
    String name = type.getName();
    return !(name.startsWith("java.") || name.startsWith("javax.") || name.startsWith("jakarta.")
        || name.startsWith("jdk.") || name.startsWith("sun.") || name.startsWith("com.sun."));
  }
}
