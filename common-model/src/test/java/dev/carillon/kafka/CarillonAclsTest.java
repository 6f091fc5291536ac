package dev.carillon.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclPermissionType;
import org.junit.jupiter.api.Test;

class CarillonAclsTest {
  private static final CarillonAcls.Principals PRINCIPALS =
      new CarillonAcls.Principals(
          "User:t", "User:w", "User:r", "User:o", /* workersWrite= */ false);

  /** "principal operation resource-name" for every binding, sorted. */
  private static Set<String> grants(List<AclBinding> bindings) {
    Set<String> out = new TreeSet<>();
    for (AclBinding b : bindings) {
      assertThat(b.entry().permissionType()).isEqualTo(AclPermissionType.ALLOW);
      out.add(b.entry().principal() + " " + b.entry().operation() + " " + b.pattern().name());
    }
    return out;
  }

  @Test
  void each_principal_gets_its_own_operations_and_nothing_on_the_other_topic() {
    assertThat(grants(CarillonAcls.bindings(PRINCIPALS, "inst", "conf", "workers")))
        .containsExactly(
            "User:o DESCRIBE conf",
            "User:o READ conf",
            "User:o WRITE conf",
            "User:r DESCRIBE conf",
            "User:r DESCRIBE inst",
            "User:r DESCRIBE_CONFIGS conf",
            "User:r READ conf",
            "User:r WRITE inst",
            "User:t DESCRIBE inst",
            "User:t READ " + CarillonAcls.TRIGGER_EVENTS_GROUP,
            "User:t WRITE inst",
            "User:w DESCRIBE inst",
            "User:w READ inst",
            "User:w READ workers");
  }

  @Test
  void workers_may_write_the_instances_topic_only_when_asked() {
    CarillonAcls.Principals writing =
        new CarillonAcls.Principals("User:t", "User:w", "User:r", "User:o", true);
    assertThat(grants(CarillonAcls.bindings(writing, "inst", "conf", "workers")))
        .contains("User:w WRITE inst");
  }

  @Test
  void each_queues_instances_topic_gets_the_instances_topics_grants_and_nothing_more() {
    Set<String> grants =
        grants(CarillonAcls.bindings(PRINCIPALS, List.of("inst", "inst.gpu"), "conf", "workers"));
    Set<String> single = grants(CarillonAcls.bindings(PRINCIPALS, "inst", "conf", "workers"));
    Set<String> onQueueTopic = new TreeSet<>();
    for (String g : single) {
      if (g.endsWith(" inst")) {
        onQueueTopic.add(g.substring(0, g.length() - "inst".length()) + "inst.gpu");
      }
    }
    assertThat(onQueueTopic)
        .containsExactly(
            "User:r DESCRIBE inst.gpu",
            "User:r WRITE inst.gpu",
            "User:t DESCRIBE inst.gpu",
            "User:t WRITE inst.gpu",
            "User:w DESCRIBE inst.gpu",
            "User:w READ inst.gpu");
    Set<String> expected = new TreeSet<>(single);
    expected.addAll(onQueueTopic);
    assertThat(grants).isEqualTo(expected);
  }

  @Test
  void a_principal_that_is_not_a_user_is_named_with_its_key() {
    assertThatThrownBy(
            () ->
                new CarillonAcls.Principals(
                    "carillon-trigger", "User:w", "User:r", "User:o", false))
        .hasMessageContaining("kafka.acl.trigger")
        .hasMessageContaining("'carillon-trigger'");
  }
}
