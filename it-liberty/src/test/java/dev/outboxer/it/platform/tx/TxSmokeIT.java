package dev.outboxer.it.platform.tx;

import static dev.outboxer.it.platform.tx.TxProbe.Provider.ECLIPSELINK;
import static dev.outboxer.it.platform.tx.TxProbe.Provider.HIBERNATE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.naming.InitialContext;

import jakarta.enterprise.concurrent.ManagedExecutorService;
import jakarta.inject.Inject;

import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import dev.outboxer.it.platform.PlatformArchives;
import dev.outboxer.it.platform.RequiresPostgres;
import dev.outboxer.it.platform.tx.TxProbe.Provider;

/**
 * (a) JPA + JMS in one JTA transaction (XA: PostgreSQL + embedded JMS engine) through EclipseLink,
 * (b) the same through Hibernate, (c) SKIP LOCKED across two transactions on two threads.
 */
@ExtendWith(ArquillianExtension.class)
@RequiresPostgres
class TxSmokeIT {

    @Deployment
    static WebArchive deployment() {
        return ShrinkWrap.create(WebArchive.class, "tx-smoke.war")
                .addClasses(ElRow.class, HbRow.class, TxProbe.class, Provider.class, SmokeRollback.class)
                .addClasses(RequiresPostgres.class, RequiresPostgres.Condition.class)
                .addAsResource("platform/tx-persistence.xml", "META-INF/persistence.xml")
                .addAsWebInfResource(PlatformArchives.beansXml(), "beans.xml")
                .addAsLibraries(PlatformArchives.testLibraries());
    }

    @Inject
    TxProbe probe;

    private static String newId(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    @Test
    void eclipselink_row_and_jms_message_commit_together() throws Exception {
        String id = newId("el-commit");
        probe.writeAndSend(ECLIPSELINK, id, "a", false);
        assertThat(probe.exists(ECLIPSELINK, id)).isTrue();
        assertThat(probe.receive(id, 10_000)).isEqualTo("row " + id);
    }

    @Test
    void eclipselink_rollback_leaves_neither_row_nor_message() throws Exception {
        String id = newId("el-rollback");
        assertThatThrownBy(() -> probe.writeAndSend(ECLIPSELINK, id, "a", true)).isInstanceOf(SmokeRollback.class);
        assertThat(probe.exists(ECLIPSELINK, id)).isFalse();
        assertThat(probe.receive(id, 2_000)).isNull();
    }

    @Test
    void persistence_units_use_eclipselink_and_hibernate() {
        assertThat(probe.providerOf(ECLIPSELINK)).startsWith("org.eclipse.persistence");
        assertThat(probe.providerOf(HIBERNATE)).startsWith("org.hibernate");
    }

    @Test
    void hibernate_row_and_jms_message_commit_together() throws Exception {
        String id = newId("hb-commit");
        probe.writeAndSend(HIBERNATE, id, "b", false);
        assertThat(probe.exists(HIBERNATE, id)).isTrue();
        assertThat(probe.receive(id, 10_000)).isEqualTo("row " + id);
    }

    @Test
    void hibernate_rollback_leaves_neither_row_nor_message() throws Exception {
        String id = newId("hb-rollback");
        assertThatThrownBy(() -> probe.writeAndSend(HIBERNATE, id, "b", true)).isInstanceOf(SmokeRollback.class);
        assertThat(probe.exists(HIBERNATE, id)).isFalse();
        assertThat(probe.receive(id, 2_000)).isNull();
    }

    @Test
    void eclipselink_native_skip_locked_skips_the_row_locked_by_another_transaction() throws Exception {
        assertSecondTransactionSkipsLockedRow(ECLIPSELINK);
    }

    @Test
    void hibernate_lock_timeout_hint_skips_the_row_locked_by_another_transaction() throws Exception {
        assertSecondTransactionSkipsLockedRow(HIBERNATE);
    }

    private void assertSecondTransactionSkipsLockedRow(Provider provider) throws Exception {
        String batch = UUID.randomUUID().toString();
        probe.insertRows(provider, batch, batch + "-1", batch + "-2", batch + "-3");
        ManagedExecutorService executor = InitialContext.doLookup("java:comp/DefaultManagedExecutorService");
        CountDownLatch locked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Future<List<String>> holder = executor.submit(() -> probe.lockAndHold(provider, batch, locked, release));
        try {
            assertThat(locked.await(30, TimeUnit.SECONDS)).as("first transaction locked a row").isTrue();
            List<String> second = provider == ECLIPSELINK
                    ? probe.lockNextNative(batch, 10)
                    : probe.lockNextHibernate(batch, 10);
            assertThat(second).containsExactly(batch + "-2", batch + "-3");
        } finally {
            release.countDown();
        }
        assertThat(holder.get(30, TimeUnit.SECONDS)).containsExactly(batch + "-1");
        // Lock released at commit: the row is visible to the next locker again.
        List<String> after = provider == ECLIPSELINK ? probe.lockNextNative(batch, 1) : probe.lockNextHibernate(batch, 1);
        assertThat(after).containsExactly(batch + "-1");
    }
}
