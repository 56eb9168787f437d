package dev.outboxer.jms.narayana;

import com.arjuna.ats.jta.common.jtaPropertyManager;
import jakarta.jms.ConnectionFactory;
import jakarta.jms.JMSException;
import jakarta.jms.XAConnectionFactory;
import jakarta.transaction.TransactionManager;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.util.IdentityHashMap;
import java.util.Map;
import javax.transaction.xa.XAResource;
import org.jboss.narayana.jta.jms.ConnectionFactoryProxy;
import org.jboss.narayana.jta.jms.TransactionHelperImpl;
import org.jboss.tm.FirstResource;

/**
 * For Java SE with Narayana: enlists the JMS relay's XA session so that Narayana prepares and
 * <b>commits the broker's branch before the database's</b>, which keeps a group's order when a
 * node dies between the two commits.
 *
 * <h2>Why the order of the two commits matters</h2>
 * A partition worker's batch is one JTA transaction: the claim of the partition and the deletion of
 * the relayed rows (the database branch), and the relay's sends (the broker branch). Narayana
 * commits branches in the order they were enlisted, and the claim enlists the database first. A
 * node killed after the database's commit and before the broker's leaves the rows deleted and the
 * partition free, while its messages wait, prepared and invisible, in the broker until the node's
 * recovery commits them: meanwhile another node relays the group's next messages, and a consumer
 * receives them first. With the broker first, the same crash leaves the <i>database</i> branch
 * prepared: it still holds the partition's row lock, so no other node relays the partition until
 * recovery has committed it; the consumer has the messages already, and in order.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li>The first XA resource this helper enlists in a transaction is marked {@link
 *       FirstResource}, which Narayana prepares and commits before every other branch of that
 *       transaction (unless another resource is marked so too, e.g. a data source configured as a
 *       first resource).
 *       Further ones in the same transaction (the relay opens one session per batch, so there are
 *       none) are enlisted as plain resources, because Narayana orders only one resource first.</li>
 *   <li>Everything else is {@link TransactionHelperImpl}'s behaviour, unchanged.</li>
 * </ul>
 *
 * <h2>What it does not guarantee</h2>
 * <ul>
 *   <li>Recovery. A node killed between the commits leaves a prepared database transaction that
 *       holds its partition until Narayana's recovery manager on that node (same node identifier
 *       and object store), or an operator, commits it; a node killed before either commit leaves
 *       both branches to it. Narayana's recovery does not keep this order by itself: register its
 *       helpers through {@link BrokerFirstRecovery}.</li>
 *   <li>Other transaction managers. In an application server the server's transaction manager
 *       decides the order; see the README's "JMS: what XA buys".</li>
 * </ul>
 *
 * <p>Use {@link #connectionFactory(XAConnectionFactory)} where the README's Java SE wiring
 * creates Narayana's {@code ConnectionFactoryProxy}.
 */
public class BrokerFirstTransactionHelper extends TransactionHelperImpl {

  private final TransactionSynchronizationRegistry registry;
  /** Per helper: the key of the transaction-scoped map from an enlisted resource to what was enlisted for it. */
  private final Object enlistedKey = new Object();

  /** Uses Narayana's transaction synchronization registry. */
  public BrokerFirstTransactionHelper(TransactionManager transactionManager) {
    this(transactionManager, jtaPropertyManager.getJTAEnvironmentBean().getTransactionSynchronizationRegistry());
  }

  public BrokerFirstTransactionHelper(TransactionManager transactionManager,
      TransactionSynchronizationRegistry registry) {
    super(transactionManager);
    this.registry = registry;
  }

  /**
   * Narayana's {@code ConnectionFactoryProxy} over {@code factory}, with sessions that enlist in the
   * current JTA transaction as the branch that commits first.
   */
  public static ConnectionFactory connectionFactory(XAConnectionFactory factory) {
    return new ConnectionFactoryProxy(factory,
        new BrokerFirstTransactionHelper(com.arjuna.ats.jta.TransactionManager.transactionManager()));
  }

  @Override
  public void registerXAResource(XAResource resource) throws JMSException {
    super.registerXAResource(enlisted(resource, true));
  }

  @Override
  public void deregisterXAResource(XAResource resource) throws JMSException {
    // Narayana finds the branch by the object that was enlisted, so delist that one.
    super.deregisterXAResource(enlisted(resource, false));
  }

  private XAResource enlisted(XAResource resource, boolean enlisting) {
    @SuppressWarnings("unchecked")
    Map<XAResource, XAResource> enlisted = (Map<XAResource, XAResource>) registry.getResource(enlistedKey);
    if (enlisted == null) {
      if (!enlisting) {
        return resource;
      }
      enlisted = new IdentityHashMap<>();
      registry.putResource(enlistedKey, enlisted);
    }
    XAResource known = enlisted.get(resource);
    if (known == null && enlisting) {
      // Narayana keeps one FirstResource per transaction (they all sort as the lowest record).
      known = enlisted.isEmpty() ? new FirstToCommit(resource) : resource;
      enlisted.put(resource, known);
    }
    return known != null ? known : resource;
  }

  /** The broker's XA resource, marked for Narayana to prepare and commit before every other branch. */
  static final class FirstToCommit extends ForwardingXAResource implements FirstResource {
    FirstToCommit(XAResource delegate) {
      super(delegate);
    }

    @Override
    public String toString() {
      return "broker first: " + delegate();
    }
  }
}
