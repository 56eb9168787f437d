package dev.outboxer.cdi.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the Flyway migrations and Liquibase changelogs in step with the DDL scripts, without a
 * database: a change to a DDL script fails here until the migrations carry it. The database tests
 * ({@link SchemaFormsContractTest}) then prove that the forms create the same schema.
 *
 * <p>The rule: a DDL script is the whole schema at the version its first line names ("schema version
 * N"); the Flyway migrations V1..VN lead to it, V1 being the DDL script of version 1 (while the
 * scripts are version 1, the build's copy of them: V1 is not in src); the Liquibase
 * changelog has one changeSet per migration, in order, each applying that migration's file. A
 * released migration never changes (Flyway and Liquibase refuse a changed checksum on every
 * database that applied it): a new schema version is a new migration and a new changeSet.
 */
class SchemaMigrationsGuardTest {

  private static final Pattern SCHEMA_VERSION = Pattern.compile("schema version (\\d+)");
  private static final Pattern MIGRATION = Pattern.compile("V(\\d+)__[a-z0-9_]+\\.sql");
  private static final Pattern SQL_FILE = Pattern.compile("<sqlFile\\s+path=\"([^\"]+)\"");
  private static final Pattern CHANGE_SET = Pattern.compile("<changeSet\\s+id=\"outboxer-schema-(\\d+)\"");

  @Test
  void the_newest_flyway_migration_of_every_database_is_the_schema_version_of_its_ddl_script() throws Exception {
    for (Dialect dialect : shippingMigrations()) {
      int version = schemaVersion(dialect);
      List<Integer> versions = migrations(dialect).stream().map(SchemaMigrationsGuardTest::version).toList();
      assertThat(versions).as("Flyway migrations in " + flywayFolder(dialect) + " for " + dialect.ddlResource()
          + ", which says schema version " + version + ": the migrations must go V1.." + version + " without a gap."
          + " Changed the DDL? Add V" + version + "__<what changed>.sql with the change, and a changeSet for it in "
          + changelog(dialect)).isEqualTo(oneTo(version));
    }
  }

  /**
   * V1 is not in src: the build copies each DDL script of schema version 1 into the jar as the
   * database's V1 (outbox-cdi/pom.xml, execution {@code flyway-v1-from-ddl}), so they are the same
   * bytes, which Flyway's and Liquibase's checksums see. From schema version 2 on that copy would
   * be wrong (a released V1 never changes), which the second half catches.
   */
  @Test
  void the_first_flyway_migration_is_the_ddl_script_of_schema_version_1_byte_for_byte() throws Exception {
    for (Dialect dialect : shippingMigrations()) {
      String v1 = flywayFolder(dialect) + "/V1__outboxer_schema.sql";
      if (schemaVersion(dialect) == 1) {
        assertThat(bytes(v1)).as(v1 + " is the build's copy of " + dialect.ddlResource() + ", byte for byte")
            .isEqualTo(bytes(dialect.ddlResource()));
      } else {
        assertThat(bytes(v1)).as(v1 + " is still the build's copy of " + dialect.ddlResource() + ", which is no"
            + " longer schema version 1. Freeze V1: commit the V1 of the last version-1 build (the released one) to"
            + " src/main/resources/" + v1 + " and delete the flyway-v1-from-ddl execution in outbox-cdi/pom.xml")
            .isNotEqualTo(bytes(dialect.ddlResource()));
      }
    }
  }

  @Test
  void the_liquibase_changelog_applies_every_flyway_migration_in_order() throws Exception {
    for (Dialect dialect : shippingMigrations()) {
      String changelog = resource(changelog(dialect));
      List<String> expected = migrations(dialect).stream().map(file -> flywayFolder(dialect) + "/" + file).toList();
      assertThat(all(SQL_FILE, changelog)).as(changelog(dialect) + ": one sqlFile per Flyway migration, in order")
          .isEqualTo(expected);
      assertThat(all(CHANGE_SET, changelog)).as(changelog(dialect) + ": changeSet ids outboxer-schema-1..N")
          .isEqualTo(oneTo(expected.size()).stream().map(String::valueOf).toList());
      assertThat(changelog).as(changelog(dialect) + " runs only on its own database")
          .contains("<dbms type=\"" + dialect.configValue() + "\"/>");
    }
  }

  private static int schemaVersion(Dialect dialect) {
    String firstLine = SchemaManager.ddl(dialect).lines().findFirst().orElse("");
    Matcher matcher = SCHEMA_VERSION.matcher(firstLine);
    assertThat(matcher.find()).as("the first line of " + dialect.ddlResource() + " names the schema version: "
        + firstLine).isTrue();
    return Integer.parseInt(matcher.group(1));
  }

  static String flywayFolder(Dialect dialect) {
    return dialect.flywayLocation();
  }

  static String changelog(Dialect dialect) {
    return dialect.liquibaseChangelog();
  }

  /** The migration files of a database, by version; any other file in the folder fails the test. */
  private static List<String> migrations(Dialect dialect) throws IOException, URISyntaxException {
    URL folder = SchemaMigrationsGuardTest.class.getClassLoader().getResource(flywayFolder(dialect));
    assertThat(folder).as(flywayFolder(dialect) + " on the class path").isNotNull();
    List<String> files;
    try (Stream<Path> listing = Files.list(Path.of(folder.toURI()))) {
      files = new ArrayList<>(listing.map(path -> path.getFileName().toString()).toList());
    }
    assertThat(files).as("files in " + flywayFolder(dialect)).allMatch(file -> MIGRATION.matcher(file).matches());
    files.sort(Comparator.comparingInt(SchemaMigrationsGuardTest::version));
    return files;
  }

  private static int version(String migration) {
    Matcher matcher = MIGRATION.matcher(migration);
    return matcher.matches() ? Integer.parseInt(matcher.group(1)) : -1;
  }

  private static List<Integer> oneTo(int last) {
    return IntStream.rangeClosed(1, last).boxed().toList();
  }

  private static List<String> all(Pattern pattern, String text) {
    List<String> found = new ArrayList<>();
    Matcher matcher = pattern.matcher(text);
    while (matcher.find()) {
      found.add(matcher.group(1));
    }
    return found;
  }

  private static String resource(String name) throws IOException {
    try (InputStream in = SchemaMigrationsGuardTest.class.getClassLoader().getResourceAsStream(name)) {
      assertThat(in).as(name + " on the class path").isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static byte[] bytes(String name) throws IOException {
    try (InputStream in = SchemaMigrationsGuardTest.class.getClassLoader().getResourceAsStream(name)) {
      assertThat(in).as(name + " on the class path").isNotNull();
      return in.readAllBytes();
    }
  }

  private static List<Dialect> shippingMigrations() {
    return List.of(Dialect.values());
  }
}
