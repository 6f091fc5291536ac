package dev.carillon.client.model;

import com.fasterxml.jackson.databind.JsonNode;
import dev.carillon.api.Stability;

/**
 * The optional body of a run-now ({@code POST /tasks/{id}/runs}).
 *
 * @param params a JSON object whose top-level fields replace the task's params of the same name for
 *     this run only; null runs with the task's params
 */
@Stability.Evolving
public record RunRequest(JsonNode params) {}
