package dev.carillon.kafka;

/** Names of Carillon's Kafka topics. */
public final class Topics {
  /**
   * Ids of instances ready to run, published by the trigger and the retry service and consumed by
   * workers. Keyed by task id, so one task's instances stay in order on one partition.
   */
  public static final String INSTANCES = "carillon.instances";

  /**
   * Operator overrides (retry, backoff, rate limits) keyed by task id or {@code default}.
   * Compacted: the latest value per key is the configuration.
   */
  public static final String CONFIG = "carillon.config";

  private Topics() {}
}
