package dev.outboxer.it.platform.broken;

import jakarta.enterprise.inject.spi.DeploymentException;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.ShouldThrowException;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * (f) A deployment failed by a CDI extension (AfterDeploymentValidation#addDeploymentProblem)
 * reaches Arquillian as jakarta.enterprise.inject.spi.DeploymentException: the form the library's
 * "bad configuration fails the deployment" tests will take.
 */
@ExtendWith(ArquillianExtension.class)
class BrokenDeploymentIT {

    @Deployment(testable = false)
    @ShouldThrowException(DeploymentException.class)
    static WebArchive deployment() {
        return BrokenArchives.broken("broken-expected.war");
    }

    @Test
    void deployment_problem_fails_the_deployment() {
        // Reached only when the deployment failed with the expected exception.
    }
}
