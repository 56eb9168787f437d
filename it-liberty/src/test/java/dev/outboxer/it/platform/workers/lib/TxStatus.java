package dev.outboxer.it.platform.workers.lib;

import jakarta.transaction.Status;

final class TxStatus {

    private TxStatus() {
    }

    static String name(int status) {
        return switch (status) {
            case Status.STATUS_ACTIVE -> "ACTIVE";
            case Status.STATUS_COMMITTED -> "COMMITTED";
            case Status.STATUS_ROLLEDBACK -> "ROLLEDBACK";
            case Status.STATUS_NO_TRANSACTION -> "NO_TRANSACTION";
            case Status.STATUS_MARKED_ROLLBACK -> "MARKED_ROLLBACK";
            default -> "STATUS_" + status;
        };
    }
}
