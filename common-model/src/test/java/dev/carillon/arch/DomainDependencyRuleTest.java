package dev.carillon.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.Test;

/**
 * The pure domain ({@code dev.carillon.model..}) never touches IO: no jOOQ, JDBC, Kafka or Curator,
 * and no generated store classes. This test is the build's dependency rule.
 */
class DomainDependencyRuleTest {

  private static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.carillon");

  @Test
  void domain_packages_do_not_depend_on_io_libraries() {
    ArchRule rule =
        noClasses()
            .that()
            .resideInAPackage("dev.carillon.model..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                "org.jooq..",
                "java.sql..",
                "javax.sql..",
                "org.apache.kafka..",
                "org.apache.curator..",
                "org.apache.zookeeper..",
                "com.zaxxer..",
                "org.flywaydb..",
                "dev.carillon.store..",
                "dev.carillon.kafka..",
                "dev.carillon.election..",
                "dev.carillon.config..");
    rule.check(MAIN);
  }

  @Test
  void the_domain_is_actually_imported_so_the_rule_cannot_pass_vacuously() {
    org.assertj.core.api.Assertions.assertThat(
            MAIN.stream().filter(c -> c.getPackageName().startsWith("dev.carillon.model")).count())
        .isGreaterThan(10);
  }
}
