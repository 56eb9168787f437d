package dev.outboxer.it;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.jboss.shrinkwrap.api.ArchivePath;
import org.jboss.shrinkwrap.api.Node;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.jboss.shrinkwrap.api.spec.JavaArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.jboss.shrinkwrap.resolver.api.maven.Maven;
import dev.outboxer.sample.OutboxPersistenceProducer;
import dev.outboxer.sample.PurchaseOrder;
import dev.outboxer.sample.ShippingPartner;

/**
 * Builds the test deployments from the sample application the build just packaged
 * ({@code target/orders.war}: the sample's classes, its persistence.xml and configuration, and
 * outbox-api, outbox-cdi and outbox-jms-relay in {@code WEB-INF/lib}), on any server: it-wildfly
 * copies this module's WAR to its own target/orders.war. Client side only.
 */
public final class OrdersArchives {

  static final File SAMPLE_WAR = new File("target/orders.war");
  static final String PERSISTENCE_XML = "/WEB-INF/classes/META-INF/persistence.xml";
  /** The WEB-INF/lib jar that {@link #withConfig} adds. */
  static final String CONFIG_OVERRIDE_JAR = "it-config-override.jar";
  /** The library jars an EAR shares in {@code lib/}; outbox-admin and outbox-health stay with the web module. */
  static final Pattern LIBRARY_JARS = Pattern.compile("/WEB-INF/lib/outbox-(api|cdi|jms-relay)-[^/]*\\.jar");

  private OrdersArchives() {}

  /** The sample WAR under another name, with the given test classes and the test libraries. */
  public static WebArchive sample(String name, Class<?>... testClasses) {
    return sampleAsBuilt(name)
        .addClasses(testClasses)
        .addAsLibraries(testLibraries());
  }

  /** The sample WAR under another name, nothing added: for tests that call it from outside only. */
  public static WebArchive sampleAsBuilt(String name) {
    if (!SAMPLE_WAR.isFile()) {
      throw new IllegalStateException(SAMPLE_WAR.getAbsolutePath() + " is missing: run the package phase first");
    }
    return ShrinkWrap.create(WebArchive.class, name)
        .merge(ShrinkWrap.createFromZipFile(WebArchive.class, SAMPLE_WAR));
  }

  /** Replaces the sample's persistence.xml with a test resource. */
  public static WebArchive withPersistenceXml(WebArchive war, String resource) {
    war.delete(PERSISTENCE_XML);
    return war.addAsResource(resource, "META-INF/persistence.xml");
  }

  /**
   * Overrides configuration keys the way an operator would: a second
   * {@code META-INF/microprofile-config.properties} (in a WEB-INF/lib jar) with a higher
   * {@code config_ordinal} than the application's own (100).
   */
  public static WebArchive withConfig(WebArchive war, Map<String, String> overrides) {
    StringBuilder properties = new StringBuilder("config_ordinal=200\n");
    overrides.forEach((key, value) -> properties.append(key).append('=').append(value).append('\n'));
    return war.addAsLibrary(ShrinkWrap.create(JavaArchive.class, CONFIG_OVERRIDE_JAR)
        .addAsManifestResource(new StringAsset(properties.toString()), "microprofile-config.properties"));
  }

  /**
   * The same application as an EAR. The library jars (outbox-api, outbox-cdi, outbox-jms-relay) go
   * to the EAR's {@code lib/} folder, and with
   * them what the library must see: CDI beans in {@code lib/} cannot see the web module's beans, so
   * the {@code @OutboxPersistence} producer and the application relay ({@code @Named("shipping")})
   * move to {@code lib/orders-core.jar}, together with the persistence unit (pointed at the given
   * data source) and its entity. The rest stays in the web module, outbox-admin and outbox-health
   * included: a REST application and health checks belong to a web module.
   */
  public static EnterpriseArchive ear(String name, WebArchive web, String dataSource) {
    EnterpriseArchive ear = ShrinkWrap.create(EnterpriseArchive.class, name);
    List<ArchivePath> moved = new ArrayList<>();
    for (Map.Entry<ArchivePath, Node> entry : web.getContent().entrySet()) {
      String path = entry.getKey().get();
      if (LIBRARY_JARS.matcher(path).matches()) {
        ear.addAsLibrary(entry.getValue().getAsset(), path.substring("/WEB-INF/lib/".length()));
        moved.add(entry.getKey());
      }
    }
    if (moved.size() != 3) {
      throw new IllegalStateException("Expected outbox-api, outbox-cdi and outbox-jms-relay in WEB-INF/lib, found " + moved);
    }
    moved.forEach(web::delete);

    Class<?>[] shared = {PurchaseOrder.class, OutboxPersistenceProducer.class, ShippingPartner.class,
        ShippingPartner.Shipment.class};
    String persistence = samplePersistenceXml().replace("<jta-data-source>jdbc/orders</jta-data-source>",
        "<jta-data-source>" + dataSource + "</jta-data-source>");
    JavaArchive core = ShrinkWrap.create(JavaArchive.class, "orders-core.jar")
        .addClasses(shared)
        .addAsManifestResource(new StringAsset(persistence), "persistence.xml")
        .addAsManifestResource(web.get("/WEB-INF/beans.xml").getAsset(), "beans.xml");
    for (Class<?> type : shared) {
      web.deleteClass(type);
    }
    web.delete(PERSISTENCE_XML);
    return ear.addAsLibrary(core).addAsModule(web);
  }

  /** The sample's persistence.xml as built. */
  public static String samplePersistenceXml() {
    return sampleResource("META-INF/persistence.xml");
  }

  /**
   * A resource of the sample's {@code WEB-INF/classes}, read from the WAR (in it-wildfly the sample
   * is it-liberty's WAR, copied to target/orders.war: there is no target/classes of the sample).
   */
  public static String sampleResource(String path) {
    if (!SAMPLE_WAR.isFile()) {
      throw new IllegalStateException(SAMPLE_WAR.getAbsolutePath() + " is missing: run the package phase first");
    }
    Node node = ShrinkWrap.createFromZipFile(WebArchive.class, SAMPLE_WAR).get("/WEB-INF/classes/" + path);
    if (node == null) {
      throw new IllegalStateException(path + " is not in " + SAMPLE_WAR);
    }
    try (InputStream in = node.getAsset().openStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** AssertJ and Awaitility for the in-container test code, from the local repository. */
  public static File[] testLibraries() {
    return Maven.configureResolver()
        .workOffline()
        .loadPomFromFile("pom.xml")
        .resolve("org.assertj:assertj-core", "org.awaitility:awaitility")
        .withTransitivity()
        .asFile();
  }
}
