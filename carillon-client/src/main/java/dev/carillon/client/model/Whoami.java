package dev.carillon.client.model;

import dev.carillon.api.Stability;

/**
 * Who the server takes the caller for ({@code GET /whoami}).
 *
 * @param principal the name recorded as {@code api:<principal>} on every change
 * @param role {@code viewer}, {@code operator} or {@code admin}
 */
@Stability.Evolving
public record Whoami(String principal, String role) {}
