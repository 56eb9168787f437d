package dev.outboxer.it;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jboss.shrinkwrap.api.ShrinkWrap;
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
