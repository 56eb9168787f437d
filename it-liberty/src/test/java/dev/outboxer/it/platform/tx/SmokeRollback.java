package dev.outboxer.it.platform.tx;

/** Thrown on purpose to roll a @Transactional method back (unchecked: rollback by default). */
public class SmokeRollback extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public SmokeRollback(String message) {
        super(message);
    }
}
