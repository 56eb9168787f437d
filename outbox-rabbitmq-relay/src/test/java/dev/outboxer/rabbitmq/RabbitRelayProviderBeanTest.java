package dev.outboxer.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxer.spi.RelayProvider;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.spi.Bean;
import java.util.List;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

/** The module's own beans.xml (annotated discovery) makes the provider a CDI bean. */
class RabbitRelayProviderBeanTest {

  @Test
  void the_provider_is_an_application_scoped_bean_named_rabbitmq() {
    try (WeldContainer container = new Weld("rabbitmq-relay-test").initialize()) {
      List<RelayProvider> providers = container.select(RelayProvider.class).stream().toList();

      assertThat(providers).singleElement()
          .satisfies(provider -> assertThat(provider.name()).isEqualTo("rabbitmq"));
      Bean<?> bean = container.getBeanManager()
          .resolve(container.getBeanManager().getBeans(RelayProvider.class));
      assertThat(bean.getBeanClass()).isEqualTo(RabbitRelayProvider.class);
      assertThat(bean.getScope()).isEqualTo(ApplicationScoped.class);
    }
  }
}
