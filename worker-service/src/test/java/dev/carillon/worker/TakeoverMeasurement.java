package dev.carillon.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The measurement behind the choice of group protocol and membership (docs/benchmarks.md, "Fast
 * takeover"): for the classic and the consumer protocol, with and without static membership, the
 * time from a restart after {@code kill -9} (same id) and from a join under a new id to the claim
 * of the queue's next instance. Run on demand, not in the build:
 *
 * <pre>
 * ./mvnw -B -pl worker-service -am test -Dtest=TakeoverMeasurement -Dcarillon.measure=true \
 *     -Dsurefire.failIfNoSpecifiedTests=false [-Dcarillon.measure.protocols=consumer]
 * </pre>
 */
@EnabledIfSystemProperty(named = "carillon.measure", matches = "true")
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class TakeoverMeasurement {
  static WorkerTestKit kit;

  @BeforeAll
  static void setUp() {
    kit = new WorkerTestKit("worker_takeover_m", 2);
  }

  @AfterAll
  static void tearDown() {
    kit.close();
  }

  @Test
  void every_protocol_and_membership() throws Exception {
    List<String> lines = new ArrayList<>();
    int n = 0;
    for (String protocol :
        System.getProperty("carillon.measure.protocols", "classic,consumer").split(",")) {
      for (boolean staticMembership : List.of(true, false)) {
        for (boolean sameId : List.of(true, false)) {
          String queue = "m" + n++;
          Takeover.Result took =
              Takeover.measure(kit, queue, protocol, staticMembership, sameId, 4);
          String line =
              String.format(
                  "| %s | %s | %s | %.1f s | %.1f s |",
                  protocol,
                  staticMembership ? "static" : "dynamic",
                  sameId ? "restart, same id" : "join, new id",
                  took.first().toMillis() / 1000.0,
                  took.last().toMillis() / 1000.0);
          lines.add(line);
          System.out.println("TAKEOVER " + line);
          assertThat(took.last()).isGreaterThanOrEqualTo(took.first());
        }
      }
    }
    System.out.println("TAKEOVER table:\n" + String.join("\n", lines));
  }
}
