package dev.outboxer.se;

import java.nio.file.Path;

/**
 * Where Narayana keeps its transaction log (the object store), and the node identifier it writes
 * into every transaction id. Narayana reads both once, when a transaction is first used: set them
 * before. A value given as a system property ({@code -DObjectStoreEnvironmentBean.objectStoreDir=...},
 * {@code -DCoreEnvironmentBean.nodeIdentifier=...}) wins over the one set here.
 *
 * <p>Not guaranteed: that two processes sharing one directory or one node identifier recover each
 * other's transactions correctly. Give each process its own directory, on storage that survives a
 * restart, and its own node identifier (at most 28 bytes), the same after a restart.
 */
public final class NarayanaStore {

  private NarayanaStore() {
  }

  /** Uses {@code directory} for the object store, unless a system property already names one. */
  public static void directory(Path directory) {
    String path = directory.toAbsolutePath().toString();
    setIfAbsent("ObjectStoreEnvironmentBean.objectStoreDir", path);
    setIfAbsent("com.arjuna.ats.arjuna.objectstore.objectStoreDir", path);
  }

  /** Uses {@code nodeIdentifier} for this process's transaction ids, unless a system property already names one. */
  public static void nodeIdentifier(String nodeIdentifier) {
    if (nodeIdentifier.isEmpty() || nodeIdentifier.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 28) {
      throw new IllegalArgumentException("Narayana's node identifier has 1 to 28 bytes; '" + nodeIdentifier
          + "' has " + nodeIdentifier.getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
    }
    setIfAbsent("CoreEnvironmentBean.nodeIdentifier", nodeIdentifier);
  }

  private static void setIfAbsent(String key, String value) {
    if (System.getProperty(key) == null) {
      System.setProperty(key, value);
    }
  }
}
