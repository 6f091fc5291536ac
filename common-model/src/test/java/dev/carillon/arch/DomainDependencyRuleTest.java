package dev.carillon.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The pure domain ({@code dev.carillon.model..}) never touches IO: no jOOQ, JDBC, Kafka or Curator,
 * no generated store classes, and no text-format library (Jackson, SnakeYAML): YAML and JSON are
 * read and written at the edges ({@code dev.carillon.spec}, the store, the Kafka codecs, config).
 * And jOOQ stays behind the stores' domain-worded methods. This test is the build's dependency
 * rule.
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
                "com.fasterxml..",
                "org.yaml..",
                "dev.carillon.store..",
                "dev.carillon.kafka..",
                "dev.carillon.election..",
                "dev.carillon.config..",
                "dev.carillon.spec..");
    rule.check(MAIN);
  }

  @Test
  void jooq_stays_inside_the_store_package() {
    ArchRule rule =
        noClasses()
            .that()
            .resideInAnyPackage(
                "dev.carillon.model..",
                "dev.carillon.kafka..",
                "dev.carillon.election..",
                "dev.carillon.config..",
                "dev.carillon.admin..",
                "dev.carillon.spec..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("org.jooq..", "dev.carillon.store.jooq..");
    rule.check(MAIN);
  }

  /**
   * The services see the stores in domain words: no public method of a store takes or returns a
   * jOOQ type (or a generated record), so no caller can build SQL around a store's rules. Exempt:
   * the constructors (a store is wired with a {@code DSLContext}), {@code Database.dsl()} that the
   * composition roots wire them with, and {@code InstantBinding}, a jOOQ binding the generated code
   * uses.
   */
  @Test
  void public_store_methods_expose_no_jooq_types() {
    ArchRule rule =
        methods()
            .that()
            .arePublic()
            .and()
            .areDeclaredInClassesThat()
            .resideInAPackage("dev.carillon.store")
            .and()
            .areDeclaredInClassesThat()
            .arePublic()
            .and()
            .areDeclaredInClassesThat()
            .areNotAssignableTo(org.jooq.Binding.class)
            .and()
            .doNotHaveFullName("dev.carillon.store.Database.dsl()")
            .should(exposeNoJooqType());
    rule.check(MAIN);
  }

  private static ArchCondition<JavaMethod> exposeNoJooqType() {
    return new ArchCondition<>("take and return no org.jooq or generated store types") {
      @Override
      public void check(JavaMethod method, ConditionEvents events) {
        Stream.concat(Stream.of(method.getReturnType()), method.getParameterTypes().stream())
            .flatMap(t -> t.getAllInvolvedRawTypes().stream())
            .map(JavaClass::getPackageName)
            .filter(p -> p.startsWith("org.jooq") || p.startsWith("dev.carillon.store.jooq"))
            .distinct()
            .forEach(
                p ->
                    events.add(
                        SimpleConditionEvent.violated(
                            method, method.getFullName() + " exposes a type of " + p)));
      }
    };
  }

  @Test
  void the_stores_are_actually_imported_so_the_store_rule_cannot_pass_vacuously() {
    org.assertj.core.api.Assertions.assertThat(
            MAIN.stream()
                .filter(c -> c.getPackageName().equals("dev.carillon.store"))
                .flatMap(c -> c.getMethods().stream())
                .filter(m -> m.getModifiers().contains(JavaModifier.PUBLIC))
                .count())
        .isGreaterThan(40);
  }

  @Test
  void the_domain_is_actually_imported_so_the_rule_cannot_pass_vacuously() {
    org.assertj.core.api.Assertions.assertThat(
            MAIN.stream().filter(c -> c.getPackageName().startsWith("dev.carillon.model")).count())
        .isGreaterThan(10);
  }
}
