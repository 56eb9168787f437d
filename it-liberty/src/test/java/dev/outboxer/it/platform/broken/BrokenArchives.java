package dev.outboxer.it.platform.broken;

import jakarta.enterprise.inject.spi.Extension;

import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.JavaArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;

import dev.outboxer.it.platform.PlatformArchives;

final class BrokenArchives {

    private BrokenArchives() {
    }

    /** A WAR whose WEB-INF/lib jar holds a CDI extension that reports a deployment problem. */
    static WebArchive broken(String name) {
        JavaArchive library = ShrinkWrap.create(JavaArchive.class, "broken-lib.jar")
                .addClass(FailingExtension.class)
                .addAsServiceProvider(Extension.class, FailingExtension.class);
        return ShrinkWrap.create(WebArchive.class, name)
                .addAsLibrary(library)
                .addAsWebInfResource(PlatformArchives.beansXml(), "beans.xml");
    }
}
