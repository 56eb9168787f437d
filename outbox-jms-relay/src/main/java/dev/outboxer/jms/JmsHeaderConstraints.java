package dev.outboxer.jms;

import dev.outboxer.spi.MessageConstraints;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * The JMS relay's one rule beyond Outboxer's own: no two headers of a message may map to the same
 * JMS property name ({@link JmsMessageProperties#forHeader}, for example {@code a.b} and {@code
 * a_DOT_b}). The relay would send only one of them, and the other would be lost without a trace;
 * {@code publish} refuses the message instead.
 */
final class JmsHeaderConstraints implements MessageConstraints {

  @Override
  public String checkMessage(String groupKey, String contentType, long payloadBytes, Map<String, String> headers) {
    Map<String, String> headerOfProperty = new HashMap<>();
    // In name order, so that the message names the same pair each time.
    for (String header : new TreeSet<>(headers.keySet())) {
      String property = JmsMessageProperties.forHeader(header);
      String earlier = headerOfProperty.putIfAbsent(property, header);
      if (earlier != null) {
        return "has the headers '" + earlier + "' and '" + header + "', which the JMS relay would both send as the"
            + " property '" + property + "', so one of them would be lost: rename one of them";
      }
    }
    return null;
  }

  @Override
  public String toString() {
    return "JmsHeaderConstraints[distinct property names]";
  }
}
