package dev.outboxer.it.platform.ear;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;

import jakarta.inject.Inject;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.jboss.shrinkwrap.api.spec.JavaArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.outboxer.it.platform.PlatformArchives;
import dev.outboxer.it.platform.ear.lib.EarLibGreeter;
import dev.outboxer.it.platform.ear.lib.EarRow;

/** (h) An EAR with a web module and a library jar in lib/ deploys; the library's beans, config
 * and entity are usable from the web module. */
@ExtendWith(ArquillianExtension.class)
class EarSmokeIT {

    @Deployment
    static EnterpriseArchive deployment() {
        JavaArchive library = ShrinkWrap.create(JavaArchive.class, "ear-lib.jar")
                .addClasses(EarLibGreeter.class, EarRow.class)
                .addAsManifestResource(PlatformArchives.beansXml(), "beans.xml")
                .addAsManifestResource("platform/ear-lib-config.properties", "microprofile-config.properties");
        WebArchive web = ShrinkWrap.create(WebArchive.class, "ear-web.war")
                .addClasses(EarSmokeIT.class, EarRowWriter.class)
                .addAsResource("platform/ear-persistence.xml", "META-INF/persistence.xml")
                .addAsWebInfResource(PlatformArchives.beansXml(), "beans.xml")
                .addAsLibraries(PlatformArchives.testLibraries());
        return ShrinkWrap.create(EnterpriseArchive.class, "ear-smoke.ear")
                .addAsModule(web)
                .addAsLibrary(library);
    }

    @Inject
    EarLibGreeter greeter;

    @Inject
    EarRowWriter writer;

    @Test
    void ear_library_bean_is_injected_and_configured_from_its_jar() {
        assertThat(greeter.greet("web")).isEqualTo("hello from the EAR lib, web");
    }

    @Test
    void web_module_unit_persists_the_ear_library_entity() {
        String id = UUID.randomUUID().toString();
        writer.write(id);
        assertThat(writer.exists(id)).isTrue();
    }
}
