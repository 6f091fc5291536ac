package dev.carillon.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import dev.carillon.auth.Role;
import dev.carillon.control.ApiFixture.Response;
import dev.carillon.control.web.Route;
import dev.carillon.devstack.DevStackExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Who may call what, generated from the route table so that a new route cannot skip it: without a
 * token or with an unknown one, 401 with a Bearer challenge; a viewer changing anything, 403 and no
 * row changed; an operator calling an admin route, 403; every role at or above a route's passes
 * authorization (whatever the route then answers about the request itself).
 */
@ExtendWith(DevStackExtension.class)
class AuthMatrixTest {
  private static ApiFixture api;

  @BeforeAll
  static void start() {
    api = ApiFixture.start("api_auth");
  }

  @AfterAll
  static void stop() throws Exception {
    api.close();
  }

  /** A concrete path for a template: ids that name nothing, so no call finds anything to change. */
  private static String path(Route r) {
    String p = r.template();
    if (p.startsWith("/api/v1/instances")) {
      p = p.replace("{id}", "987654321");
    }
    return p.replace("{id}", "no-such-task")
        .replace("{scope}", "retry")
        .replace("{name}", "auth-matrix");
  }

  private static Response call(Route r, String token) {
    String body = r.body() == Route.Body.JSON ? "{}" : null;
    return api.call(r.method(), path(r), token, body, Map.of());
  }

  @Test
  void the_route_table_has_every_role_and_every_change_needs_more_than_a_viewer() {
    List<Route> routes = api.server.router().routes();
    assertThat(routes).extracting(Route::role).contains(Role.VIEWER, Role.OPERATOR, Role.ADMIN);
    for (Route r : routes) {
      if (r.method().equals("GET")) {
        assertThat(r.role()).as("%s %s reads", r.method(), r.template()).isEqualTo(Role.VIEWER);
      } else if (!r.template().equals("/api/v1/retry-plan")) {
        assertThat(r.role())
            .as("%s %s changes state", r.method(), r.template())
            .isNotEqualTo(Role.VIEWER);
      }
    }
  }

  @TestFactory
  Stream<DynamicTest> every_route_is_authorized_by_role() {
    List<DynamicTest> tests = new ArrayList<>();
    for (Route r : api.server.router().routes()) {
      String name = r.method() + " " + r.template();
      tests.add(
          dynamicTest(
              name + ": no token or an unknown one is 401",
              () -> {
                Response none = call(r, null);
                assertThat(none.status()).as("%s", none).isEqualTo(401);
                assertThat(none.headers().firstValue("WWW-Authenticate"))
                    .hasValue("Bearer realm=\"carillon\"");
                assertThat(none.contentType()).isEqualTo("application/problem+json");
                assertThat(none.json().get("problems").get(0).get("field").asText())
                    .isEqualTo("Authorization");
                Response bad = call(r, "crl_not-a-token");
                assertThat(bad.status()).isEqualTo(401);
                assertThat(bad.headers().firstValue("WWW-Authenticate").orElse(""))
                    .contains("error=\"invalid_token\"");
                assertThat(bad.body()).doesNotContain("crl_not-a-token");
              }));
      tests.add(
          dynamicTest(
              name
                  + ": a viewer "
                  + (r.role() == Role.VIEWER ? "passes" : "is refused, nothing changes"),
              () -> {
                Map<String, String> before = api.snapshot();
                Response v = call(r, api.viewer);
                if (r.role() == Role.VIEWER) {
                  assertThat(v.status()).as("%s", v).isNotIn(401, 403);
                } else {
                  assertThat(v.status()).as("%s", v).isEqualTo(403);
                  assertThat(v.json().get("problems").get(0).get("field").asText())
                      .isEqualTo("role");
                  assertThat(v.json().get("problems").get(0).get("value").asText())
                      .isEqualTo("viewer");
                  assertThat(api.snapshot()).isEqualTo(before);
                }
              }));
      tests.add(
          dynamicTest(
              name + ": an operator " + (r.role() == Role.ADMIN ? "is refused" : "passes"),
              () -> {
                Map<String, String> before = api.snapshot();
                Response o = call(r, api.operatorToken);
                if (r.role() == Role.ADMIN) {
                  assertThat(o.status()).as("%s", o).isEqualTo(403);
                  assertThat(o.json().get("problems").get(0).get("value").asText())
                      .isEqualTo("operator");
                  assertThat(api.snapshot()).isEqualTo(before);
                } else {
                  assertThat(o.status()).as("%s", o).isNotIn(401, 403);
                }
              }));
      tests.add(
          dynamicTest(
              name + ": an admin passes",
              () -> assertThat(call(r, api.admin).status()).isNotIn(401, 403)));
    }
    return tests.stream();
  }
}
