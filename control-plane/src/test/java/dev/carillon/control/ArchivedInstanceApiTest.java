package dev.carillon.control;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.client.model.EventView;
import dev.carillon.client.model.InstanceView;
import dev.carillon.client.model.WhyView;
import dev.carillon.control.ApiFixture.Response;
import dev.carillon.devstack.DevStackExtension;
import dev.carillon.model.instance.Instance;
import dev.carillon.store.ArchiveStore;
import dev.carillon.store.Decision;
import dev.carillon.store.Lease;
import dev.carillon.store.Outcome;
import dev.carillon.store.ResumeStore;
import dev.carillon.testsupport.Tasks;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 24, item 3: the API's instance, events and why answer for an instance the archiver moved to
 * the history tables, marked with {@code archivedAt}; changes refuse it by name. Its own database:
 * archiving with no retention moves every finished instance.
 */
@ExtendWith(DevStackExtension.class)
class ArchivedInstanceApiTest {
  private static ApiFixture api;

  @BeforeAll
  static void start() {
    api = ApiFixture.start("api_archived");
  }

  @AfterAll
  static void stop() throws Exception {
    api.close();
  }

  @Test
  void an_archived_instance_its_events_and_its_why_stay_readable_and_say_archived() {
    api.apply(Tasks.daily("kept").build());
    Instance p = api.pending("kept", "2026-01-05");
    Instance claimed = api.leases.claim(List.of(p.id()), "w1").get(0);
    Lease lease = new Lease(claimed.id(), claimed.attempt());
    ResumeStore resume = new ResumeStore(api.db.dsl());
    resume.saveCheckpoint(lease, "w1", "{\"next\":3}");
    resume.startEffect(lease, "w1", "post");
    resume.recordEffect(lease, "w1", "post", "msg-1");
    assertThat(api.leases.complete(lease, Outcome.success("done", false, null), "w1")).isTrue();
    Decision exists =
        new Decision("kept", "2026-01-05", p.id(), "trigger:test", "window exists, status SUCCESS");
    dev.carillon.store.EpochStore epochs = new dev.carillon.store.EpochStore(api.db.dsl());
    dev.carillon.store.Fence trigger = epochs.begin("trigger", "archived-api-test");
    api.windows.recordDecisions(List.of(exists), trigger);
    api.windows.recordDecisions(List.of(exists), trigger);
    InstanceView live =
        api.call("GET", "/api/v1/instances/" + p.id(), api.viewer).as(InstanceView.class);
    assertThat(live.archivedAt()).isNull();

    assertThat(
            new ArchiveStore(api.db.dsl())
                .archiveFinished(Duration.ZERO, 100, epochs.begin("retry", "archived-api-test")))
        .containsExactly(p.id());
    assertThat(api.operator.find(p.id())).isEmpty();

    InstanceView view =
        api.call("GET", "/api/v1/instances/" + p.id(), api.viewer).as(InstanceView.class);
    assertThat(view.archivedAt()).isNotNull();
    assertThat(view.status()).isEqualTo("SUCCESS");
    assertThat(view.resultSummary()).isEqualTo("done");
    assertThat(view.checkpoints()).hasSize(1);
    assertThat(view.effects()).extracting(e -> e.key()).containsExactly("post");
    assertThat(view)
        .usingRecursiveComparison()
        .ignoringFields("archivedAt", "local")
        .isEqualTo(live);
    // The task is in UTC: its clock reads the archive time with offset +00:00, to the second.
    assertThat(view.local())
        .containsEntry(
            "archivedAt",
            view.archivedAt()
                    .truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
                    .toString()
                    .replace("Z", "")
                + "+00:00");
    java.util.Map<String, String> rest = new java.util.HashMap<>(view.local());
    rest.remove("archivedAt");
    assertThat(rest).as("the other local times as the live view gave them").isEqualTo(live.local());

    EventView[] events =
        api.call("GET", "/api/v1/instances/" + p.id() + "/events", api.viewer)
            .as(EventView[].class);
    assertThat(events)
        .extracting(EventView::kind)
        .containsExactly("CREATED", "TRANSITION", "TRANSITION", "DECISION");
    assertThat(events[3].text()).contains("window exists, status SUCCESS (2 times in a row");

    WhyView why =
        api.call("GET", "/api/v1/instances/" + p.id() + "/why", api.viewer).as(WhyView.class);
    assertThat(why.archivedAt()).isEqualTo(view.archivedAt());
    assertThat(why.lines().get(1))
        .startsWith("Archived ")
        .endsWith("read from the history tables.");
    assertThat(why.lines()).anyMatch(l -> l.contains("succeeded (attempt 1), reported by w1"));

    Response cancel =
        api.call("POST", "/api/v1/instances/" + p.id() + "/cancel", api.operatorToken, "{}");
    assertThat(cancel.status()).isEqualTo(404);
    assertThat(cancel.body())
        .contains("was archived; an archived instance can be read, not changed");
    Response missing = api.call("GET", "/api/v1/instances/987654", api.viewer);
    assertThat(missing.status()).isEqualTo(404);
    assertThat(missing.body()).contains("is not an instance");
  }
}
