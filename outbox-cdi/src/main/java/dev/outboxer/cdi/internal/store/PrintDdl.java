package dev.outboxer.cdi.internal.store;

import java.util.Arrays;

/**
 * Prints Outboxer's DDL for a database: {@code java -cp outbox-cdi.jar
 * dev.outboxer.cdi.internal.store.PrintDdl postgresql} (or {@code mariadb}, {@code h2}, {@code sqlite}).
 */
public final class PrintDdl {

  private PrintDdl() {}

  public static void main(String[] args) {
    if (args.length != 1 || Dialect.fromConfig(args[0]).isEmpty()) {
      System.err.println("usage: java -cp outbox-cdi.jar " + PrintDdl.class.getName() + " <database>, one of "
          + Arrays.stream(Dialect.values()).map(Dialect::configValue).toList());
      System.exit(2);
      return;
    }
    System.out.print(SchemaManager.ddl(Dialect.fromConfig(args[0]).orElseThrow()));
  }
}
