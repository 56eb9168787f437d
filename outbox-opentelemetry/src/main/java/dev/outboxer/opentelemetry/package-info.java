/**
 * OpenTelemetry tracing for Outboxer: add the {@code outbox-opentelemetry} jar next to {@code
 * outbox-cdi} and a message carries the trace of the code that published it to its consumer;
 * without the jar nothing changes. There is nothing to call: the two beans here are a {@link
 * dev.outboxer.spi.PublishInterceptor} and a {@link dev.outboxer.spi.RelayInterceptor} found by
 * bean discovery. Everything is package-private; the header names, span name and attributes below
 * are the contract.
 *
 * <h2>Rationale</h2>
 * An outbox cuts a trace in two: the business transaction ends at {@code publish}, the message
 * leaves later on a worker thread. Storing the trace context with the message and continuing it
 * when the message is relayed joins the two halves, and the consumer's tracing (which reads the
 * {@code traceparent} header, as the OpenTelemetry instrumentations of JMS and Kafka do) continues
 * from there.
 *
 * <h2>How it works</h2>
 * <ol>
 *   <li><b>At publish</b>, on the publishing thread: if a valid span is current, its context is
 *       written into the message's headers {@code traceparent} and {@code tracestate} (W3C trace
 *       context, always, whatever propagators the application configured). Without a current span
 *       nothing is added. A message that sets either header itself keeps its own.</li>
 *   <li><b>At relay</b>, for each record of a batch: a span named {@code publish <outbox>}, kind
 *       PRODUCER, <b>child of the publish-time span</b> (so one trace runs from the request through
 *       the outbox to the consumer; a record published without a trace gets a root span). Its
 *       attributes: {@code messaging.system=outboxer}, {@code messaging.operation.type=send}, {@code
 *       messaging.operation.name=publish}, {@code messaging.destination.name} (the outbox), {@code
 *       messaging.destination.partition.id}, {@code messaging.message.id}, and {@code
 *       outboxer.outbox}, {@code outboxer.partition}, {@code outboxer.message.id}, {@code
 *       outboxer.message.type}, {@code outboxer.group_key} (if any), {@code
 *       outboxer.fencing_token}, {@code outboxer.attempt} (1 for the first delivery attempt).</li>
 *   <li>The wrapped relay gets the same batch with the record's {@code traceparent}/{@code
 *       tracestate} replaced by the relay span's context; the JMS, Kafka and SQS relays pass
 *       headers on, so the consumer's span becomes a child of the relay span. A record published
 *       without a trace is handed on unchanged: a header added at relay time was never checked
 *       against the destination's limits (SQS allows 10 message attributes), and must not make an
 *       accepted message undeliverable. Every report of the
 *       wrapped relay reaches the core for the original record; {@code heldBack}, {@code
 *       claimHeld}, {@code fencingToken}, {@code deadline} and the rest pass through.</li>
 *   <li>When the relay's call is over, each span ends at the time its record was reported, with
 *       attribute {@code outboxer.outcome} and the status the core's verdict gives it: {@code
 *       confirmed} (OK), {@code failed} (ERROR, with the exception recorded; also for unreported
 *       records when the relay threw), {@code unreported} (ERROR: counts as failed), {@code
 *       held_back} (UNSET: not sent, stays pending), {@code confirmation_ignored} (ERROR: confirmed
 *       after an earlier message of its group did not go through), {@code reported_after_deadline}
 *       (ERROR) and {@code claim_lapsed} (ERROR: nothing of the batch is committed).</li>
 * </ol>
 *
 * <h2>Where the spans go</h2>
 * To the application's CDI bean of type {@link io.opentelemetry.api.OpenTelemetry} if there is
 * exactly one (MicroProfile Telemetry provides it; it is looked up once), else to {@link
 * io.opentelemetry.api.GlobalOpenTelemetry} as it stands at each batch. Outboxer never sets the
 * global instance nor triggers its autoconfiguration ({@code getOrNoop()}), so the Java agent or an
 * application that sets it later is picked up; until then spans are no-ops and the publisher's
 * context is handed on as it was stored.
 *
 * <h2>What is guaranteed, what is not</h2>
 * <ul>
 *   <li>Tracing never fails a publish: if the context cannot be stored, the message is published
 *       without it (logged once at WARNING).</li>
 *   <li>OK means the relay confirmed the record, not that the worker's transaction committed: if
 *       that commit fails, the batch goes out again under new spans (a duplicate shows as two spans
 *       with the same {@code outboxer.message.id}). Each retry is a span of its own, child of the
 *       same publish span.</li>
 *   <li>A span starts when its batch is handed to the relay, not when its record is sent: in a
 *       large batch the later records' spans include the time spent on the earlier ones.</li>
 *   <li>If the relay's destination client is itself instrumented (the OpenTelemetry Java agent
 *       instruments the Kafka producer and JMS), it may add its own span and header between ours
 *       and the consumer.</li>
 *   <li>Needs {@code opentelemetry-api} at run time (the server's, the agent's or the
 *       application's); the jar declares it {@code provided}.</li>
 * </ul>
 */
package dev.outboxer.opentelemetry;
