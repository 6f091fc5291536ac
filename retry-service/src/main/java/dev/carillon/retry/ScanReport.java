package dev.carillon.retry;

/**
 * What one scan pass did.
 *
 * @param timedOut RUNNING instances moved to TIMEOUT
 * @param retried FAILED/TIMEOUT instances moved to RETRY_WAIT
 * @param dead FAILED/TIMEOUT instances moved to DEAD
 * @param promoted RETRY_WAIT instances moved to PENDING
 * @param republished instance messages Kafka acknowledged (due retries and stranded instances)
 * @param heldBack instances a rate limit kept back this pass
 * @param archived finished instances moved to history
 * @param complete false when the pass stopped early because leadership was lost
 */
public record ScanReport(
    int timedOut,
    int retried,
    int dead,
    int promoted,
    int republished,
    int heldBack,
    int archived,
    boolean complete) {}
