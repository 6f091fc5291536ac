package dev.carillon.control;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.carillon.control.resources.MetaRoutes;
import dev.carillon.control.web.Route;
import java.time.Clock;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The checked-in OpenAPI document describes exactly the routes served: the same paths and methods,
 * each with the same least role and the same query parameters; and each schema named after a wire
 * record of the client's model lists exactly that record's fields (a field added to a view, such as
 * its local times, must be documented). No server needed: the routes are built as the server builds
 * them.
 */
class OpenApiTest {
  private static final String PREFIX = "/api/v1";

  private final JsonNode doc = MetaRoutes.openapi();
  private final Map<String, Route> routes = new TreeMap<>();

  OpenApiTest() {
    ControlPlane unused =
        new ControlPlane(
            Clock.systemUTC(),
            new dev.carillon.store.TaskStore(null),
            new dev.carillon.store.OperatorStore(null),
            new dev.carillon.store.WindowStore(null),
            new dev.carillon.store.PresenceStore(null),
            new dev.carillon.store.RunEvidenceStore(null),
            new dev.carillon.kafka.ConfigTopic(
                dev.carillon.kafka.KafkaSettings.of("127.0.0.1:1"),
                "none",
                java.time.Duration.ofSeconds(1)),
            instances -> java.util.List.of(),
            1,
            d -> {});
    for (Route r :
        ApiServer.routes(
            unused,
            new Insight(
                new dev.carillon.store.OverviewQueries(null),
                new dev.carillon.store.ScanRecords(null),
                Insight.Leadership.none("unused")))) {
      routes.put(r.method() + " " + r.template(), r);
    }
  }

  @Test
  void the_document_is_openapi_3_1_served_under_api_v1() {
    assertThat(doc.get("openapi").asText()).isEqualTo("3.1.0");
    assertThat(doc.get("servers").get(0).get("url").asText()).isEqualTo(PREFIX);
  }

  @Test
  void its_paths_and_methods_are_exactly_the_routes() {
    Set<String> documented = new TreeSet<>();
    Iterator<Map.Entry<String, JsonNode>> paths = doc.get("paths").fields();
    while (paths.hasNext()) {
      Map.Entry<String, JsonNode> p = paths.next();
      p.getValue()
          .fieldNames()
          .forEachRemaining(m -> documented.add(m.toUpperCase() + " " + PREFIX + p.getKey()));
    }
    assertThat(documented).isEqualTo(routes.keySet());
  }

  @Test
  void each_operation_names_the_route_role_and_query_parameters() {
    for (Route r : routes.values()) {
      JsonNode op =
          doc.get("paths")
              .get(r.template().substring(PREFIX.length()))
              .get(r.method().toLowerCase());
      String where = r.method() + " " + r.template();
      assertThat(op.get("x-carillon-role").asText()).as(where).isEqualTo(r.role().label());
      Set<String> query = new TreeSet<>();
      if (op.has("parameters")) {
        op.get("parameters")
            .forEach(
                p -> {
                  if (p.get("in").asText().equals("query")) {
                    query.add(p.get("name").asText());
                  }
                });
      }
      assertThat(query).as(where).isEqualTo(new TreeSet<>(r.query()));
      assertThat(op.has("requestBody"))
          .as(where + " has a body")
          .isEqualTo(r.body() != Route.Body.NONE);
    }
  }

  @Test
  void each_wire_record_s_schema_documents_exactly_its_fields() throws Exception {
    JsonNode schemas = doc.get("components").get("schemas");
    int checked = 0;
    Iterator<String> names = schemas.fieldNames();
    while (names.hasNext()) {
      String name = names.next();
      Class<?> type = modelRecord(name);
      if (type == null) {
        continue;
      }
      Set<String> documented = new TreeSet<>();
      schemas.get(name).path("properties").fieldNames().forEachRemaining(documented::add);
      Set<String> fields = new TreeSet<>();
      for (java.lang.reflect.RecordComponent c : type.getRecordComponents()) {
        fields.add(c.getName());
      }
      assertThat(documented).as(name).isEqualTo(fields);
      checked++;
    }
    assertThat(checked).as("schemas named after a record of the client's model").isGreaterThan(20);
  }

  /** The client model's record of that name (nested ones as Outer.Inner), or null. */
  private static Class<?> modelRecord(String name) {
    try {
      Class<?> c = Class.forName("dev.carillon.client.model." + name.replace('.', '$'));
      return c.isRecord() ? c : null;
    } catch (ClassNotFoundException e) {
      return null;
    }
  }
}
