package dev.carillon.client.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class WireJsonTest {
  private final ObjectMapper server = WireJson.server();
  private final ObjectMapper client = WireJson.client();

  @Test
  void instants_travel_as_iso_text_and_nulls_are_left_out() throws Exception {
    OutcomeView o =
        new OutcomeView(7, "2026-03-29", "SUCCESS", Instant.parse("2026-03-29T08:00:01Z"));
    String json = server.writeValueAsString(o);
    assertThat(json)
        .isEqualTo(
            "{\"instanceId\":7,\"windowKey\":\"2026-03-29\",\"status\":\"SUCCESS\","
                + "\"finishedAt\":\"2026-03-29T08:00:01Z\"}");
    assertThat(client.readValue(json, OutcomeView.class)).isEqualTo(o);
    assertThat(server.writeValueAsString(FieldProblem.of("limit", null, "is required")))
        .isEqualTo("{\"field\":\"limit\",\"message\":\"is required\"}");
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
