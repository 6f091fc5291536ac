package dev.carillon.control;

import dev.carillon.store.OverviewQueries;
import dev.carillon.store.ScanRecords;
import java.util.Objects;
import java.util.Optional;

/**
 * What the overview reads beyond the control plane's stores: the summary queries (on the API's own
 * connection pool), the retry service's recorded scan passes, and the trigger's leadership, which
 * lives in ZooKeeper rather than in the database.
 */
public record Insight(OverviewQueries overview, ScanRecords scans, Leadership trigger) {
  /** The trigger's leadership as this replica can see it. */
  public interface Leadership {
    /** The id of the leading replica, if ZooKeeper names one now. Must not block for long. */
    Optional<String> leader();

    /** This replica's id. */
    String self();

    /** For a setup without an election (tests of the API alone): nobody leads. */
    static Leadership none(String self) {
      return new Leadership() {
        @Override
        public Optional<String> leader() {
          return Optional.empty();
        }

        @Override
        public String self() {
          return self;
        }
      };
    }
  }

  public Insight {
    Objects.requireNonNull(overview, "overview");
    Objects.requireNonNull(scans, "scans");
    Objects.requireNonNull(trigger, "trigger");
  }
}
