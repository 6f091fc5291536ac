package dev.carillon.control.web;

import dev.carillon.auth.Role;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One endpoint of the API: method and path template, the least role that may call it, the query
 * parameters it takes (any other is refused), and whether it reads a body.
 *
 * @param template e.g. {@code /api/v1/tasks/{id}/pause}; a segment in braces is a path parameter,
 *     any other segment (including {@code tasks:apply}) is literal
 * @param role the least role allowed: GETs are {@link Role#VIEWER}, changes {@link Role#OPERATOR},
 *     config changes {@link Role#ADMIN}
 * @param query the query parameters accepted
 * @param body whether and how a body is read
 * @param summary one line for the OpenAPI document's reader
 */
public record Route(
    String method,
    String template,
    Role role,
    Set<String> query,
    Body body,
    String summary,
    RouteHandler handler) {

  /** Whether a route reads a request body. */
  public enum Body {
    /** No body may be sent. */
    NONE,
    /** A JSON body may be sent. */
    OPTIONAL_JSON,
    /** A JSON body must be sent. */
    JSON,
    /** A task spec must be sent, as JSON or as YAML ({@code application/yaml}). */
    SPEC
  }

  public Route {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(template, "template");
    Objects.requireNonNull(role, "role");
    query = Set.copyOf(query);
    Objects.requireNonNull(body, "body");
    Objects.requireNonNull(handler, "handler");
  }

  /** The template's segments, without the leading empty one. */
  List<String> segments() {
    return List.of(template.substring(1).split("/"));
  }

  /** Whether calling it changes state (anything but GET). */
  public boolean changes() {
    return !method.equals("GET");
  }
}
