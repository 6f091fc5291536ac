package dev.carillon.bench;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;

/**
 * Everything a system needs for one run: its own fresh database, the shared settings and the
 * recorder its jobs report to.
 *
 * @param jdbcUrl a database created for this run only
 * @param threads worker threads (Quartz thread pool, db-scheduler executor, ceiling clients)
 * @param poolSize HikariCP maximum (and minimum) pool size, the same for every system
 * @param pollInterval how often a polling scheduler looks for due work when idle
 * @param runId short unique token for names that must not clash within the JVM
 * @param kafkaBootstrap the dev stack's Kafka ({@code host:port}); only Carillon uses it
 * @param zkConnect the dev stack's ZooKeeper connect string; only Carillon uses it
 * @param createAhead Carillon's {@code trigger.create-ahead}; only Carillon uses it
 */
public record RunContext(
    String jdbcUrl,
    String user,
    String password,
    int threads,
    int poolSize,
    Duration pollInterval,
    Recorder recorder,
    Clock clock,
    String runId,
    String kafkaBootstrap,
    String zkConnect,
    Duration createAhead,
    Duration claimAhead) {
  public RunContext {
    Objects.requireNonNull(claimAhead, "claimAhead");
    Objects.requireNonNull(createAhead, "createAhead");
    Objects.requireNonNull(jdbcUrl, "jdbcUrl");
    Objects.requireNonNull(recorder, "recorder");
    Objects.requireNonNull(clock, "clock");
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1, was " + threads);
    }
    if (poolSize < 1) {
      throw new IllegalArgumentException("poolSize must be at least 1, was " + poolSize);
    }
  }
}
