package dev.carillon.control.web;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Finds the route for a method and a path. Small on purpose: a list of templates matched segment by
 * segment, a literal segment before a parameter, no regular expressions and no wildcards.
 */
public final class Router {
  private final List<Route> routes;

  /**
   * @throws IllegalArgumentException when two routes have the same method and template
   */
  public Router(List<Route> routes) {
    Set<String> seen = new LinkedHashSet<>();
    for (Route r : routes) {
      if (!seen.add(r.method() + " " + r.template())) {
        throw new IllegalArgumentException(
            "route declared twice: " + r.method() + " " + r.template());
      }
    }
    this.routes = List.copyOf(routes);
  }

  /** Every route, in declaration order (the OpenAPI check and the auth matrix read them). */
  public List<Route> routes() {
    return routes;
  }

  /** A route and the values of its path parameters. */
  public record Match(Route route, Map<String, String> pathParams) {}

  /**
   * The route for {@code method} and {@code path} (already percent-decoded).
   *
   * @throws ApiException 404 naming the path when no template matches, 405 (with {@code Allow})
   *     when templates match with other methods
   */
  public Match match(String method, String path) {
    List<String> segments = split(path);
    Set<String> allowed = new LinkedHashSet<>();
    for (Route r : routes) {
      Optional<Map<String, String>> params = bind(r.segments(), segments);
      if (params.isEmpty()) {
        continue;
      }
      if (r.method().equals(method)) {
        return new Match(r, params.get());
      }
      allowed.add(r.method());
    }
    if (allowed.isEmpty()) {
      throw ApiException.notFound(
          "path", path, "is not an endpoint of this API (see /api/v1/openapi.json)");
    }
    throw methodNotAllowed(method, allowed);
  }

  private static ApiException methodNotAllowed(String method, Set<String> allowed) {
    return ApiException.of(
            405,
            "method " + method + " is not allowed here; allowed: " + String.join(", ", allowed),
            List.of(
                dev.carillon.client.model.FieldProblem.of(
                    "method", method, "must be one of " + String.join(", ", allowed))))
        .withHeader("Allow", String.join(", ", allowed));
  }

  private static List<String> split(String path) {
    String p = path.startsWith("/") ? path.substring(1) : path;
    List<String> out = new ArrayList<>();
    for (String s : p.split("/", -1)) {
      out.add(s);
    }
    return out;
  }

  private static Optional<Map<String, String>> bind(List<String> template, List<String> path) {
    if (template.size() != path.size()) {
      return Optional.empty();
    }
    Map<String, String> params = new LinkedHashMap<>();
    for (int i = 0; i < template.size(); i++) {
      String t = template.get(i);
      String p = path.get(i);
      if (t.startsWith("{") && t.endsWith("}")) {
        if (p.isEmpty()) {
          return Optional.empty();
        }
        params.put(t.substring(1, t.length() - 1), p);
      } else if (!t.equals(p)) {
        return Optional.empty();
      }
    }
    return Optional.of(new HashMap<>(params));
  }
}
