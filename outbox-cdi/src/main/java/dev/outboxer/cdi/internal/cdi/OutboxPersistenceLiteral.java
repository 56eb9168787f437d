package dev.outboxer.cdi.internal.cdi;

import dev.outboxer.OutboxPersistence;
import jakarta.enterprise.util.AnnotationLiteral;

/** An instance of the {@link OutboxPersistence} qualifier, for programmatic lookup. */
public final class OutboxPersistenceLiteral extends AnnotationLiteral<OutboxPersistence> implements OutboxPersistence {
  private static final long serialVersionUID = 1L;
  public static final OutboxPersistenceLiteral INSTANCE = new OutboxPersistenceLiteral();

  private OutboxPersistenceLiteral() {}
}
