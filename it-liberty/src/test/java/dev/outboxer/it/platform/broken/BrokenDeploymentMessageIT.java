package dev.outboxer.it.platform.broken;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.ArrayList;
import java.util.List;

import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * (f) The same failure deployed by hand, to see what the exception carries: the test can assert
 * the message (key and value) the library reports.
 */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class BrokenDeploymentMessageIT {

    private static final String BROKEN = "broken-manual";

    @Deployment(name = BROKEN, managed = false, testable = false)
    static WebArchive deployment() {
        return BrokenArchives.broken("broken-manual.war");
    }

    @ArquillianResource
    Deployer deployer;

    @Test
    void failed_deployment_carries_the_deployment_problem_message() {
        Throwable failure = catchThrowable(() -> deployer.deploy(BROKEN));
        try {
            assertThat(failure).isNotNull();
            List<String> chain = new ArrayList<>();
            for (Throwable t = failure; t != null; t = t.getCause()) {
                chain.add(t.getClass().getName() + ": " + t.getMessage());
            }
            System.out.println("Deployment failure cause chain:\n  " + String.join("\n  ", chain));
            assertThat(chain).anySatisfy(c -> assertThat(c)
                    .startsWith("org.jboss.arquillian.container.spi.client.container.DeploymentException")
                    .contains(FailingExtension.MESSAGE));
            assertThat(chain).anySatisfy(c -> assertThat(c)
                    .startsWith("jakarta.enterprise.inject.spi.DeploymentException"));
        } finally {
            deployer.undeploy(BROKEN);
        }
    }
}
