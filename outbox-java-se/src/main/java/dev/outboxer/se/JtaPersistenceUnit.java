package dev.outboxer.se;

import jakarta.persistence.SharedCacheMode;
import jakarta.persistence.ValidationMode;
import jakarta.persistence.spi.ClassTransformer;
import jakarta.persistence.spi.PersistenceUnitInfo;
import jakarta.persistence.spi.PersistenceUnitTransactionType;
import java.net.URL;
import java.util.List;
import java.util.Properties;
import javax.sql.DataSource;

/**
 * A persistence unit as an application declares it in persistence.xml: its own entities on a JTA
 * data source. Outboxer needs nothing in it: it reaches its tables through the unit's JTA connection.
 */
final class JtaPersistenceUnit implements PersistenceUnitInfo {

  private final String name;
  private final DataSource dataSource;
  private final List<String> managedClasses;
  private final Properties properties;

  JtaPersistenceUnit(String name, DataSource dataSource, List<String> managedClasses, Properties properties) {
    this.name = name;
    this.dataSource = dataSource;
    this.managedClasses = List.copyOf(managedClasses);
    this.properties = properties;
  }

  @Override public String getPersistenceUnitName() { return name; }
  @Override public String getPersistenceProviderClassName() { return "org.hibernate.jpa.HibernatePersistenceProvider"; }
  @Override public PersistenceUnitTransactionType getTransactionType() { return PersistenceUnitTransactionType.JTA; }
  @Override public DataSource getJtaDataSource() { return dataSource; }
  @Override public DataSource getNonJtaDataSource() { return null; }
  @Override public List<String> getMappingFileNames() { return List.of(); }
  @Override public List<URL> getJarFileUrls() { return List.of(); }
  @Override public URL getPersistenceUnitRootUrl() { return null; }
  @Override public List<String> getManagedClassNames() { return managedClasses; }
  @Override public boolean excludeUnlistedClasses() { return true; }
  @Override public SharedCacheMode getSharedCacheMode() { return SharedCacheMode.NONE; }
  @Override public ValidationMode getValidationMode() { return ValidationMode.NONE; }
  @Override public Properties getProperties() { return properties; }
  @Override public String getPersistenceXMLSchemaVersion() { return "3.0"; }
  @Override public ClassLoader getClassLoader() { return Thread.currentThread().getContextClassLoader(); }
  @Override public void addTransformer(ClassTransformer transformer) { }
  @Override public ClassLoader getNewTempClassLoader() { return null; }
}
