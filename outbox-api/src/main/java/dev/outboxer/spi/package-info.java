/**
 * Service-provider interfaces: how messages leave the outbox ({@link dev.outboxer.spi.Relay}) and
 * how they are turned into bytes ({@link dev.outboxer.spi.PayloadCodec}).
 *
 * <h2>Who implements, who calls</h2>
 * <ul>
 *   <li>{@link dev.outboxer.spi.Relay} is implemented by the relay modules ({@code
 *       outbox-jms-relay}, {@code outbox-kafka-relay}) and by applications that send somewhere
 *       else. Outboxer's partition workers call it, one batch at a time per partition, inside the
 *       worker's JTA transaction.</li>
 *   <li>{@link dev.outboxer.spi.RelayProvider} is implemented by relay modules as a CDI bean; it
 *       creates one relay per outbox that names it in {@code outbox.<name>.relay}. An application
 *       relay needs no provider: a {@code @Named} CDI bean implementing {@code Relay} is found by
 *       its name.</li>
 *   <li>{@link dev.outboxer.spi.RelayBatch} and {@link dev.outboxer.spi.OutboxRecord} are
 *       implemented by Outboxer and handed to relays.</li>
 *   <li>{@link dev.outboxer.spi.PayloadCodec} may be implemented by the application as a CDI bean;
 *       without one, Outboxer encodes payloads with JSON-B.</li>
 *   <li>{@link dev.outboxer.spi.ConfigKeyNames} and {@link dev.outboxer.spi.ConfigDurations} are
 *       used by every module that reads configuration: the keys that the names MicroProfile Config
 *       reports stand for (environment variables included), the "did you mean" of a misspelt key,
 *       and the duration spellings.</li>
 * </ul>
 *
 * <h2>Example</h2>
 * <pre>{@code
 * @Named("webhook") @ApplicationScoped
 * public class WebhookRelay implements Relay {
 *     public void relay(RelayBatch batch) {
 *         for (OutboxRecord record : batch.records()) {
 *             if (batch.heldBack(record)) continue;   // an earlier record of its group failed
 *             try {
 *                 post(record);
 *                 batch.confirm(record);
 *             } catch (SchemaRejectedException e) {  // retrying cannot help: the message dies at once
 *                 batch.fail(record, new PermanentRelayFailure("the partner rejects its schema", e));
 *             } catch (IOException e) {               // retried after a backoff
 *                 batch.fail(record, e);
 *             }
 *         }
 *     }
 * }
 * }</pre>
 */
package dev.outboxer.spi;
