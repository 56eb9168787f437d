package dev.outboxer.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.jboss.shrinkwrap.api.spec.JavaArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/**
 * What a deployment of the sample needs on WildFly besides what {@link OrdersArchives} builds for
 * any server: the resource references of {@code wildfly/web.xml} (the sample's relative JNDI names
 * mapped to WildFly's {@code java:/} bindings) and the JMS relay's resources by their WildFly names,
 * set the way an operator would (a configuration override). Client side only.
 */
final class WildFlyArchives {

  /** The relay's connection factory and queues, as configure-server.cli binds them. */
  static final Map<String, String> JMS_NAMES = Map.of(
      "outbox.orders.jms.connection-factory", "java:/jms/outboxCF",
      "outbox.orders.jms.destination", "java:/jms/orderEvents",
      "outbox.audit.jms.connection-factory", "java:/jms/outboxCF",
      "outbox.audit.jms.destination", "java:/jms/auditEvents");

  private WildFlyArchives() {}

  /** The web archive prepared for WildFly, with further configuration keys of the test. */
  static WebArchive forWildFly(WebArchive war, Map<String, String> config) {
    Map<String, String> all = new LinkedHashMap<>(JMS_NAMES);
    all.putAll(config);
    return OrdersArchives.withConfig(war, all).addAsWebInfResource("wildfly/web.xml", "web.xml");
  }

  static WebArchive forWildFly(WebArchive war) {
    return forWildFly(war, Map.of());
  }

  /** The MariaDB data source of configure-server.cli. */
  static final String MARIADB_DATA_SOURCE = "java:/jdbc/ordersMariaDB";

  /**
   * A web archive of {@link #forWildFly} moved to MariaDB: the persistence unit's data source and the
   * {@code jdbc/orders} reference (the sample's SchemaSetup looks it up) both name
   * {@link #MARIADB_DATA_SOURCE}. Nothing else changes: the sample is the same application.
   */
  static WebArchive onMariaDb(WebArchive war) {
    String persistence = OrdersArchives.samplePersistenceXml().replace("<jta-data-source>jdbc/orders</jta-data-source>",
        "<jta-data-source>" + MARIADB_DATA_SOURCE + "</jta-data-source>");
    String webXml = testResource("wildfly/web.xml").replace("<lookup-name>java:/jdbc/orders</lookup-name>",
        "<lookup-name>" + MARIADB_DATA_SOURCE + "</lookup-name>");
    if (!persistence.contains(MARIADB_DATA_SOURCE) || !webXml.contains(MARIADB_DATA_SOURCE)) {
      throw new IllegalStateException("The sample's persistence.xml or wildfly/web.xml no longer names jdbc/orders as expected");
    }
    war.delete(OrdersArchives.PERSISTENCE_XML);
    war.delete("/WEB-INF/web.xml");
    return war.addAsResource(new StringAsset(persistence), "META-INF/persistence.xml")
        .addAsWebInfResource(new StringAsset(webXml), "web.xml");
  }

  private static String testResource(String path) {
    try (InputStream in = WildFlyArchives.class.getClassLoader().getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException(path + " is not on the test class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The sample as an EAR ({@link OrdersArchives#ear}) prepared for WildFly. WildFly gives Outboxer in
   * the EAR's lib/ the MicroProfile Config that lib/ sees, not the web module's: the sample's
   * {@code microprofile-config.properties} and the configuration override go to lib/ jars beside
   * Outboxer. The resource references stay in the web module, whose beans look the resources up.
   */
  static EnterpriseArchive ear(String name, WebArchive web) {
    forWildFly(web);
    String overridePath = "/WEB-INF/lib/" + OrdersArchives.CONFIG_OVERRIDE_JAR;
    JavaArchive override = web.getAsType(JavaArchive.class, overridePath);
    web.delete(overridePath);
    String configPath = "/WEB-INF/classes/META-INF/microprofile-config.properties";
    JavaArchive config = ShrinkWrap.create(JavaArchive.class, "orders-config.jar")
        .addAsManifestResource(web.get(configPath).getAsset(), "microprofile-config.properties");
    web.delete(configPath);
    return OrdersArchives.ear(name, web, "jdbc/orders").addAsLibraries(override, config);
  }
}
