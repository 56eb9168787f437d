package dev.outboxer.local;

import dev.outboxer.spi.OutboxRecord;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.inject.Named;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The handler of outbox {@code ledger}: raw records, selected by name ({@code
 * outbox.ledger.local.handler=ledgerHandler}); reads the sequence number from the JSON itself.
 */
@ApplicationScoped
@Named("ledgerHandler")
public class LedgerHandler implements OutboxHandler {

  private static final Pattern SEQ = Pattern.compile("\"seq\"\\s*:\\s*(\\d+)");

  @Inject EffectWriter writer;

  @Override
  public void handle(OutboxRecord record) throws Exception {
    Matcher seq = SEQ.matcher(record.payloadText());
    if (!seq.find()) {
      throw new IllegalArgumentException("no seq in " + record.payloadText());
    }
    writer.handle(record, record.groupKey(), Integer.parseInt(seq.group(1)));
  }
}
