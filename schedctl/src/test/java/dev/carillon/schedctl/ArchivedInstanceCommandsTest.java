package dev.carillon.schedctl;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.carillon.model.instance.Instance;
import dev.carillon.store.ArchiveStore;
import dev.carillon.store.Decision;
import dev.carillon.store.Lease;
import dev.carillon.store.LeaseStore;
import dev.carillon.store.OperatorStore;
import dev.carillon.store.Outcome;
import dev.carillon.store.ResumeStore;
import dev.carillon.store.TaskStore;
import dev.carillon.store.WindowStore;
import dev.carillon.testsupport.Tasks;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 24, item 3: an instance the archiver moved to the history tables is still described and
 * explained, marked as archived. Its own database: archiving with no retention moves every finished
 * instance.
 */
class ArchivedInstanceCommandsTest {
  private static Cli.Env env;
  private static OperatorStore instances;
  private static WindowStore windows;
  private static LeaseStore leases;
  private static ResumeStore resume;
  private static ArchiveStore archive;

  @BeforeAll
  static void setUp() {
    Cli.ensureTopics();
    env = Cli.Env.fresh("schedctl_archived");
    instances = new OperatorStore(env.db().dsl());
    windows = new WindowStore(env.db().dsl());
    leases = new LeaseStore(env.db().dsl());
    resume = new ResumeStore(env.db().dsl());
    archive = new ArchiveStore(env.db().dsl());
    new TaskStore(env.db().dsl()).applyAll(List.of(Tasks.daily("arch").build()));
  }

  @AfterAll
  static void tearDown() {
    env.close();
  }

  @Test
  void describe_and_why_answer_for_an_archived_instance_and_say_it_is_archived() {
    Instance i =
        windows
            .create(List.of(Tasks.pending("arch", "2026-01-05", Duration.ofMinutes(5))), "trigger")
            .get(0);
    Instance running = leases.claim(List.of(i.id()), "worker-1").get(0);
    Lease lease = new Lease(i.id(), running.attempt());
    resume.saveCheckpoint(lease, "worker-1", "{\"next\":3}");
    resume.startEffect(lease, "worker-1", "post");
    resume.recordEffect(lease, "worker-1", "post", "msg-1");
    assertThat(leases.complete(lease, Outcome.success("done", false, null), "worker-1")).isTrue();
    Decision exists =
        new Decision("arch", "2026-01-05", i.id(), "trigger", "window exists, status SUCCESS");
    dev.carillon.store.EpochStore epochs = new dev.carillon.store.EpochStore(env.db().dsl());
    dev.carillon.store.Fence trigger = epochs.begin("trigger", "archived-commands-test");
    windows.recordDecisions(List.of(exists), trigger);
    windows.recordDecisions(List.of(exists), trigger);

    assertThat(
            archive.archiveFinished(
                Duration.ZERO, 100, epochs.begin("retry", "archived-commands-test")))
        .containsExactly(i.id());
    assertThat(instances.find(i.id())).isEmpty();

    Cli.Result described = Cli.run(env.vars(), "describe", "instance", Long.toString(i.id()));
    assertThat(described.code()).as(described.toString()).isZero();
    assertThat(described.out())
        .containsPattern("archived: +\\S+Z.*\\(read from the history tables\\)")
        .contains("SUCCESS")
        .contains("claimed by worker-1 (attempt 1)")
        .contains("window exists, status SUCCESS (2 times in a row")
        .containsPattern("1 +\\S+Z +\\S+\\+00:00 +1 +worker-1 +\\{\"next\":3\\}")
        .containsPattern("1 +post +done +\\S+Z +\\S+\\+00:00 +worker-1 +msg-1");
    JsonNode json =
        Cli.run(env.vars(), "-o", "json", "describe", "instance", Long.toString(i.id())).json();
    assertThat(json.get("archivedAt").isNull()).isFalse();
    assertThat(json.get("events").findValuesAsText("kind"))
        .containsExactly("CREATED", "TRANSITION", "TRANSITION", "DECISION");

    Cli.Result why = Cli.run(env.vars(), "why", "arch", "2026-01-05");
    assertThat(why.code()).as(why.toString()).isZero();
    assertThat(why.out())
        .contains("Archived ")
        .contains("read from the history tables")
        .contains("created PENDING by trigger")
        .contains("succeeded (attempt 1), reported by worker-1")
        .contains("window exists, status SUCCESS (2 times in a row");
    JsonNode whyJson = Cli.run(env.vars(), "-o", "json", "why", "arch", "2026-01-05").json();
    assertThat(whyJson.get("archivedAt").isNull()).isFalse();
    assertThat(whyJson.get("events")).hasSize(4);

    // A live window's story is not marked.
    windows.create(List.of(Tasks.pending("arch", "2026-01-06", Duration.ofMinutes(5))), "trigger");
    Cli.Result live = Cli.run(env.vars(), "why", "arch", "2026-01-06");
    assertThat(live.out()).doesNotContain("Archived").contains("created PENDING");
  }
}
