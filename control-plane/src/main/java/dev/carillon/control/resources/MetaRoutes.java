package dev.carillon.control.resources;

import com.fasterxml.jackson.databind.JsonNode;
import dev.carillon.auth.Role;
import dev.carillon.client.model.RetryPlanRequest;
import dev.carillon.client.model.RetryPlanView;
import dev.carillon.client.model.Whoami;
import dev.carillon.control.web.ApiException;
import dev.carillon.control.web.ApiRequest;
import dev.carillon.control.web.JsonBodies;
import dev.carillon.control.web.Reply;
import dev.carillon.control.web.Route;
import dev.carillon.model.Durations;
import dev.carillon.model.InvalidValueException;
import dev.carillon.model.retry.RetryPlan;
import dev.carillon.model.retry.RetryPolicy;
import dev.carillon.spec.RetryPolicyJson;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** {@code /api/v1/whoami}, {@code /api/v1/openapi.json} and the retry-plan calculator. */
public final class MetaRoutes {
  /** Where the checked-in OpenAPI document lives on the class path. */
  public static final String OPENAPI = "/openapi.json";

  private final JsonNode openapi;

  public MetaRoutes() {
    this.openapi = openapi();
  }

  /** The checked-in OpenAPI 3.1 document. */
  public static JsonNode openapi() {
    try (InputStream in = MetaRoutes.class.getResourceAsStream(OPENAPI)) {
      if (in == null) {
        throw new IllegalStateException(OPENAPI + " is missing from the class path");
      }
      return JsonBodies.JSON.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + OPENAPI, e);
    }
  }

  /** The routes, in the order of the OpenAPI document. */
  public List<Route> routes() {
    return List.of(
        new Route(
            "GET",
            "/api/v1/whoami",
            Role.VIEWER,
            Set.of(),
            Route.Body.NONE,
            "Who the server takes the caller for",
            r -> Reply.ok(new Whoami(r.principal().name(), r.principal().role().label()))),
        new Route(
            "GET",
            "/api/v1/openapi.json",
            Role.VIEWER,
            Set.of(),
            Route.Body.NONE,
            "This API's OpenAPI 3.1 document",
            r -> Reply.ok(openapi)),
        new Route(
            "POST",
            "/api/v1/retry-plan",
            Role.VIEWER,
            Set.of(),
            Route.Body.JSON,
            "How many exponential retries fit in a recovery time (changes nothing)",
            this::retryPlan));
  }

  private Reply retryPlan(ApiRequest r) {
    RetryPlanRequest body = r.requireBody(RetryPlanRequest.class);
    Duration recovery = duration("recovery", body.recovery());
    Duration initial = duration("initial", body.initial());
    double multiplier = body.multiplier() == null ? 2.0 : body.multiplier();
    Duration cap = body.cap() == null ? RetryPolicy.MAX_DELAY : duration("cap", body.cap());
    RetryPlan plan;
    try {
      plan = new RetryPlan(recovery, initial, multiplier, cap);
    } catch (InvalidValueException e) {
      throw ApiException.badRequest(
          e.problem().field(), e.problem().value(), e.problem().message());
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest("recovery", body.recovery(), e.getMessage());
    }
    List<RetryPlanView.Step> steps = new ArrayList<>();
    Duration total = Duration.ZERO;
    List<Duration> delays = plan.delays();
    for (int i = 0; i < delays.size(); i++) {
      total = total.plus(delays.get(i));
      steps.add(
          new RetryPlanView.Step(i + 1, Durations.format(delays.get(i)), Durations.format(total)));
    }
    return Reply.ok(
        new RetryPlanView(
            Durations.format(recovery),
            Durations.format(initial),
            multiplier,
            Durations.format(cap),
            plan.retries(),
            Durations.format(plan.cumulative()),
            steps,
            JsonBodies.JSON.valueToTree(RetryPolicyJson.toSpec(plan.toPolicy()))));
  }

  private static Duration duration(String field, String text) {
    if (text == null) {
      throw ApiException.badRequest(field, null, "is required, e.g. 1h or 5m");
    }
    Duration d =
        Durations.tryParse(text)
            .orElseThrow(
                () ->
                    ApiException.badRequest(
                        field, text, "is not a duration (use 500ms, 30s, 5m, 1h, 2d or PT5M)"));
    if (d.isNegative() || d.isZero()) {
      throw ApiException.badRequest(field, text, "must be more than 0");
    }
    return d;
  }
}
