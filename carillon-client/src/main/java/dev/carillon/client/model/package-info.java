/**
 * The JSON shapes of Carillon's HTTP API ({@code /api/v1}), as Java records: what the server writes
 * and reads, and what the client reads and writes, so the two cannot drift. Instants are ISO-8601
 * text in UTC ({@code 2026-03-29T08:00:00Z}), durations Carillon's short form ({@code 90s}, {@code
 * 5m}, {@code 1h}), statuses and kinds upper-case names. Fields a response may add in a later minor
 * release are ignored by {@link WireJson#client()}; a request with a field the server does not know
 * is refused.
 */
@Stability.Evolving
package dev.carillon.client.model;

import dev.carillon.api.Stability;
