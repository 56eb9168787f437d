package dev.outboxer.cdi.internal.publish;

import dev.outboxer.OutboxConfigurationException;
import dev.outboxer.OutboxMessage;
import dev.outboxer.spi.PayloadCodec;
import jakarta.json.bind.Jsonb;
import jakarta.json.bind.JsonbException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.FutureTask;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The default codec: JSON-B, UTF-8. Used when the application has no PayloadCodec bean.
 *
 * <p>JSON-B recurses once per level of nesting of the payload, and a level takes between about
 * half a kilobyte and two kilobytes of stack (less once the JIT compiled the serializer): a payload
 * nested a few hundred levels deep can overflow what is left of the stack of an application server's
 * request thread under its interceptors. The codec encodes on the caller's thread, with the caller's
 * contexts; only if that overflows the stack does it encode again on a thread of its own with a
 * stack of {@value #ENCODER_STACK_BYTES} bytes (reserved, not committed, until used), where
 * thousands of levels fit, while the caller waits. The getters JSON-B calls then run a second time,
 * there, with the caller's context class loader but not its thread-bound contexts (CDI request
 * scope, security, {@code java:comp}): message getters should return data. A payload nested deeper
 * than even that fails with a {@link StackOverflowError}, which {@code publish} turns into an
 * {@code InvalidOutboxMessageException}.
 *
 * <p>JSON-B writes only the properties it can see: public getters and public fields (and what
 * {@code @JsonbProperty} or a {@code @JsonbVisibility} shows it). State kept in private fields
 * without a getter is not written, and an object of a class that shows JSON-B no property at all is
 * written as {@code {}}, whatever its values. The codec refuses that case ({@link UnseenState}: an
 * {@code InvalidOutboxMessageException} naming the path, such as {@code payload.body}, and the
 * class), so that a message is never relayed with its state silently missing. A class that shows
 * some properties but hides others is not detected: the hidden ones are dropped. To see what is
 * relayed, encode the message in a test and assert the JSON: {@code
 * JsonbBuilder.create().toJson(message)} writes what this codec writes.
 */
final class JsonbPayloadCodec implements PayloadCodec {

  /** The stack of the encoding threads: room for thousands of levels of nesting. */
  static final long ENCODER_STACK_BYTES = 16L * 1024 * 1024;

  private static final AtomicInteger ENCODER_THREADS = new AtomicInteger();

  /** Threads created when needed, one per concurrent publish at most, ended after 30 s idle. */
  private static final ExecutorService ENCODERS = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS,
      new SynchronousQueue<>(), work -> {
        // Not the caller's inheritable thread-locals nor, until it runs work, its class loader: an idle
        // encoder thread must not keep an undeployed application alive.
        Thread thread = new Thread(null, work, "outboxer-json-encoder-" + ENCODER_THREADS.incrementAndGet(),
            ENCODER_STACK_BYTES, false);
        thread.setDaemon(true);
        thread.setContextClassLoader(null);
        return thread;
      });

  static final String MISSING_JSONB = "Outboxer's default payload codec needs a JSON-B implementation, and the"
      + " application sees none: enable the server's JSON-B feature (Open Liberty: <feature>jsonb-3.0</feature>;"
      + " WildFly has it), add one in Java SE (org.eclipse:yasson), or produce a dev.outboxer.spi.PayloadCodec bean";

  private final Jsonb jsonb;

  private JsonbPayloadCodec(Jsonb jsonb) {
    this.jsonb = jsonb;
  }

  /**
   * @throws OutboxConfigurationException naming the fix if no JSON-B implementation (or not even
   *     the API) is visible to the application
   */
  static JsonbPayloadCodec create() {
    try {
      return new JsonbPayloadCodec(jakarta.json.bind.JsonbBuilder.create());
    } catch (RuntimeException | LinkageError noProvider) {
      OutboxConfigurationException missing = new OutboxConfigurationException("PayloadCodec", MISSING_JSONB
          + " (" + noProvider + ")");
      missing.initCause(noProvider);
      throw missing;
    }
  }

  @Override
  public String contentType() {
    return "application/json";
  }

  /**
   * Encodes on the calling thread; if that overflows its stack, again on a thread with a stack of
   * {@value #ENCODER_STACK_BYTES} bytes, rethrowing on the calling thread what that encoding threw,
   * {@link StackOverflowError} included.
   */
  @Override
  public byte[] encode(OutboxMessage message) {
    String json;
    try {
      json = jsonb.toJson(message);
    } catch (StackOverflowError tooDeepForThisThread) {
      return encodeWithDeepStack(message);
    }
    UnseenState.check(message, json);
    return json.getBytes(StandardCharsets.UTF_8);
  }

  private byte[] encodeWithDeepStack(OutboxMessage message) {
    ClassLoader callers = Thread.currentThread().getContextClassLoader();
    FutureTask<String> encoding = new FutureTask<>(() -> {
      Thread encoder = Thread.currentThread();
      encoder.setContextClassLoader(callers);
      try {
        String json = jsonb.toJson(message);
        UnseenState.check(message, json);
        return json;
      } finally {
        encoder.setContextClassLoader(null);
      }
    });
    try {
      ENCODERS.execute(encoding);
    } catch (RuntimeException | OutOfMemoryError noThread) {
      // No thread to be had (the system's limit): encode here, with the caller's stack.
      encoding.run();
    }
    return awaitUninterruptibly(encoding).getBytes(StandardCharsets.UTF_8);
  }

  private static String awaitUninterruptibly(FutureTask<String> encoding) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return encoding.get();
        } catch (InterruptedException e) {
          // The encoding is short and the caller needs its outcome: wait on, and keep the interrupt.
          interrupted = true;
        } catch (ExecutionException e) {
          Throwable failure = e.getCause();
          if (failure instanceof RuntimeException runtime) {
            throw runtime;
          }
          if (failure instanceof Error error) {
            throw error;
          }
          throw new JsonbException("JSON-B failed with " + failure.getClass().getName(), failure);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Override
  public <T> T decode(byte[] payload, Class<T> type) {
    return jsonb.fromJson(new String(payload, StandardCharsets.UTF_8), type);
  }
}
