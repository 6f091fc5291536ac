package dev.carillon.testkit;

import dev.carillon.api.Stability;
import java.time.Instant;
import java.util.Optional;

/**
 * One line of a run's instance history, e.g. {@code RUNNING -> SUCCESS} by the harness's worker.
 *
 * @param from the status before, empty for the creation
 * @param to the status after
 * @param attempt the attempt the event belongs to, empty when none had started
 * @param actor who acted: {@code testkit} for the creation, the worker's id for the rest
 * @param reason why, as recorded (a failure reason, a timeout), or empty
 * @param at when (UTC, the database's clock)
 */
@Stability.Evolving
public record RunEvent(
    Optional<String> from,
    String to,
    Optional<Integer> attempt,
    String actor,
    Optional<String> reason,
    Instant at) {}
