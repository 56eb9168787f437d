package dev.outboxer.it.platform.broken;

import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.Extension;

/** Fails the deployment the way the library will on bad configuration. */
public class FailingExtension implements Extension {

    static final String MESSAGE =
            "outbox.orders.ordering=sideways is not one of group, total, none (outboxer smoke test)";

    void validate(@Observes AfterDeploymentValidation validation) {
        validation.addDeploymentProblem(new IllegalArgumentException(MESSAGE));
    }
}
