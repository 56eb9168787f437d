package dev.outboxer.it.platform;

import java.io.File;

import org.jboss.shrinkwrap.api.asset.Asset;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.resolver.api.maven.Maven;

/** Pieces shared by the smoke deployments. Used on the client side only (in @Deployment methods). */
public final class PlatformArchives {

    private PlatformArchives() {
    }

    /** A CDI 4.0 beans.xml with annotated discovery (the CDI 4 default, written out to be explicit). */
    public static Asset beansXml() {
        return new StringAsset("""
                <beans xmlns="https://jakarta.ee/xml/ns/jakartaee"
                       xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
                       xsi:schemaLocation="https://jakarta.ee/xml/ns/jakartaee https://jakarta.ee/xml/ns/jakartaee/beans_4_0.xsd"
                       version="4.0" bean-discovery-mode="annotated"/>
                """);
    }

    /**
     * Libraries the in-container test code needs (AssertJ, Awaitility and their dependencies),
     * resolved with the ShrinkWrap Maven resolver from this module's pom: versions come from the pom,
     * jars from the local repository (offline). The same call packages the library's own jars, see
     * the module README.
     */
    public static File[] testLibraries() {
        return Maven.configureResolver()
                .workOffline()
                .loadPomFromFile("pom.xml")
                .resolve("org.assertj:assertj-core", "org.awaitility:awaitility")
                .withTransitivity()
                .asFile();
    }
}
