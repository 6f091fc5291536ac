package dev.carillon.client.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WireJsonTest {
  private final ObjectMapper server = WireJson.server();
  private final ObjectMapper client = WireJson.client();

  @Test
  void instants_travel_as_iso_text_and_nulls_are_left_out() throws Exception {
    OutcomeView o =
        new OutcomeView(
            7, "2026-03-29", "SUCCESS", Instant.parse("2026-03-29T08:00:01Z"), null, null);
    String json = server.writeValueAsString(o);
    assertThat(json)
        .isEqualTo(
            "{\"instanceId\":7,\"windowKey\":\"2026-03-29\",\"status\":\"SUCCESS\","
                + "\"finishedAt\":\"2026-03-29T08:00:01Z\",\"local\":{}}");
    assertThat(client.readValue(json, OutcomeView.class)).isEqualTo(o);
    assertThat(server.writeValueAsString(FieldProblem.of("limit", null, "is required")))
        .isEqualTo("{\"field\":\"limit\",\"message\":\"is required\"}");
  }

  @Test
  void views_with_instants_carry_them_on_the_tasks_clock_and_read_back() throws Exception {
    // What the server writes for a task in America/New_York on the day its clocks went forward.
    Instant before = Instant.parse("2026-03-08T06:30:00Z");
    Instant after = Instant.parse("2026-03-08T07:30:00Z");
    String zone = "America/New_York";
    List<Object> views =
        List.of(
            new EventView(
                1,
                9L,
                "TRANSITION",
                "PENDING",
                "RUNNING",
                1,
                "w1",
                null,
                after,
                "t",
                zone,
                Map.of("at", "2026-03-08T03:30:00-04:00")),
            new AttemptView(
                1,
                "w1",
                before,
                after,
                "SUCCESS",
                null,
                3_600_000,
                zone,
                Map.of(
                    "startedAt",
                    "2026-03-08T01:30:00-05:00",
                    "endedAt",
                    "2026-03-08T03:30:00-04:00")),
            new CheckpointView(
                1,
                server.readTree("{\"n\":1}"),
                2,
                "w1",
                after,
                zone,
                Map.of("savedAt", "2026-03-08T03:30:00-04:00")),
            new EffectView(
                "mail",
                1,
                1,
                "w1",
                true,
                before,
                after,
                "sent",
                zone,
                Map.of(
                    "startedAt",
                    "2026-03-08T01:30:00-05:00",
                    "doneAt",
                    "2026-03-08T03:30:00-04:00")),
            new DeadGroupView(
                "nightly",
                "boom",
                2,
                before,
                after,
                9,
                zone,
                Map.of(
                    "firstFinishedAt",
                    "2026-03-08T01:30:00-05:00",
                    "lastFinishedAt",
                    "2026-03-08T03:30:00-04:00")),
            new TriggerView(
                "AT", null, after, null, "once", zone, Map.of("at", "2026-03-08T03:30:00-04:00")),
            new DeleteResult(
                "nightly",
                3,
                after,
                List.of(),
                zone,
                Map.of("deletedAt", "2026-03-08T03:30:00-04:00")),
            new BackfillResult(
                "nightly",
                before,
                after,
                true,
                1,
                0,
                0,
                0,
                List.of("2026-03-08"),
                zone,
                Map.of("from", "2026-03-08T01:30:00-05:00", "to", "2026-03-08T03:30:00-04:00")),
            new WhyView(
                "nightly",
                "2026-03-08",
                List.of(),
                List.of(),
                null,
                null,
                after,
                zone,
                Map.of("archivedAt", "2026-03-08T03:30:00-04:00")));
    for (Object v : views) {
      String json = server.writeValueAsString(v);
      assertThat(json).as(v.getClass().getSimpleName()).contains("\"zone\":\"America/New_York\"");
      assertThat(client.readValue(json, v.getClass())).as(json).isEqualTo(v);
    }
    EventView e = client.readValue(server.writeValueAsString(views.get(0)), EventView.class);
    assertThat(e.local()).containsExactly(Map.entry("at", "2026-03-08T03:30:00-04:00"));
  }

  @Test
  void a_view_from_a_server_without_local_times_reads_with_none_and_ignores_newer_fields()
      throws Exception {
    String older =
        "{\"number\":1,\"worker\":\"w1\",\"startedAt\":\"2026-03-08T06:30:00Z\","
            + "\"durationMs\":5,\"shownIn\":\"a field a newer server adds\"}";
    AttemptView a = client.readValue(older, AttemptView.class);
    assertThat(a.zone()).isNull();
    assertThat(a.local()).isEmpty();
    assertThat(a.startedAt()).isEqualTo(Instant.parse("2026-03-08T06:30:00Z"));
  }

  @Test
  void the_server_refuses_unknown_fields_and_the_client_ignores_them() throws Exception {
    String json = "{\"reason\":\"flaky tool\",\"force\":true}";
    assertThatThrownBy(() -> server.readValue(json, ActionRequest.class))
        .isInstanceOf(UnrecognizedPropertyException.class)
        .hasMessageContaining("force");
    assertThat(client.readValue(json, ActionRequest.class))
        .isEqualTo(new ActionRequest("flaky tool"));
  }

  @Test
  void the_server_refuses_text_where_a_number_belongs() {
    assertThatThrownBy(() -> server.readValue("{\"limit\":\"10\"}", RerunDeadRequest.class))
        .hasMessageContaining("limit");
  }

  @Test
  void a_page_and_a_problem_round_trip() throws Exception {
    Page<Long> page = new Page<>(List.of(3L, 2L), "abc");
    assertThat(client.readValue(server.writeValueAsString(page), Page.class).nextCursor())
        .isEqualTo("abc");
    Problem p =
        new Problem(
            "about:blank",
            "Bad Request",
            400,
            "1 problem",
            List.of(new FieldProblem("schedule.cron", "0 0 8 * *", "needs 6 or 7 fields", 3, 11)));
    assertThat(client.readValue(server.writeValueAsString(p), Problem.class)).isEqualTo(p);
  }
}
