package dev.carillon.client.model;

import dev.carillon.api.Stability;

/**
 * The optional body of a cancel or a re-run.
 *
 * @param reason recorded in the instance's history beside the caller's name
 */
@Stability.Evolving
public record ActionRequest(String reason) {}
