package dev.carillon.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.carillon.config.Config;
import dev.carillon.config.ConfigException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WorkerSettingsTest {
  private static Map<String, String> base() {
    Map<String, String> m = new HashMap<>();
    m.put("db.url", "jdbc:postgresql://db:5432/carillon");
    m.put("db.password", "hunter2");
    m.put("kafka.bootstrap", "kafka:9092");
    return m;
  }

  @Test
  void defaults_apply_and_zookeeper_is_not_required() {
    WorkerSettings s = WorkerSettings.from(Config.of(base()));
    assertThat(s.concurrency()).isEqualTo(4);
    assertThat(s.group()).isEqualTo("carillon-workers");
    assertThat(s.topic()).isEqualTo("carillon.instances");
    assertThat(s.maxSummaryBytes()).isEqualTo(4096);
    assertThat(s.heartbeatInterval()).isEmpty();
    assertThat(s.drainTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(s.pluginDir()).isEmpty();
    assertThat(s.admin().port()).isEqualTo(8082);
  }

  @Test
  void worker_keys_are_read_and_the_description_masks_the_password() {
    Map<String, String> m = base();
    m.put("worker.concurrency", "8");
    m.put("worker.heartbeat-interval", "2s");
    m.put("worker.drain-timeout", "1m");
    m.put("worker.plugin-dir", "/opt/plugins");
    m.put("worker.max-summary-bytes", "1024");
    WorkerSettings s = WorkerSettings.from(Config.of(m));
    assertThat(s.concurrency()).isEqualTo(8);
    assertThat(s.heartbeatInterval()).contains(Duration.ofSeconds(2));
    assertThat(s.drainTimeout()).isEqualTo(Duration.ofMinutes(1));
    assertThat(s.pluginDir()).isEqualTo(Optional.of(Path.of("/opt/plugins")));
    assertThat(s.maxSummaryBytes()).isEqualTo(1024);
    assertThat(s.describe()).doesNotContain("hunter2").contains("concurrency=8");
  }

  @Test
  void a_bad_value_names_the_key() {
    Map<String, String> m = base();
    m.put("worker.concurrency", "0");
    assertThatThrownBy(() -> WorkerSettings.from(Config.of(m)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("worker.concurrency")
        .hasMessageContaining("between 1 and 1024");
  }

  @Test
  void keys_lists_exactly_what_from_reads() {
    Config c = Config.of(base());
    WorkerSettings.from(c);
    assertThat(c.keysRead()).containsExactlyInAnyOrderElementsOf(WorkerSettings.KEYS);
  }

  @Test
  void queues_fencing_and_the_group_protocol_are_read_and_checked() {
    Map<String, String> m = base();
    m.put("worker.queues", "gpu, default ,gpu");
    m.put("worker.max-abandoned-runs", "2");
    m.put("worker.stop-grace", "1s");
    m.put("worker.fence-margin", "3s");
    m.put("worker.group-protocol", "consumer");
    m.put("worker.static-membership", "false");
    WorkerSettings s = WorkerSettings.from(Config.of(m));
    assertThat(s.queues()).containsExactly("default", "gpu");
    assertThat(s.maxAbandonedRuns()).isEqualTo(2);
    assertThat(s.stopGrace()).isEqualTo(Duration.ofSeconds(1));
    assertThat(s.fenceMargin()).isEqualTo(Duration.ofSeconds(3));
    assertThat(s.groupProtocol()).isEqualTo(WorkerSettings.GroupProtocol.CONSUMER);
    assertThat(s.staticMembership()).isFalse();

    WorkerSettings d = WorkerSettings.from(Config.of(base()));
    assertThat(d.queues()).containsExactly("default");
    assertThat(d.groupProtocol()).isEqualTo(WorkerSettings.GroupProtocol.CLASSIC);
    assertThat(d.staticMembership()).isTrue();
  }

  @Test
  void a_bad_queue_a_stray_comma_and_a_grace_not_shorter_than_the_margin_are_named() {
    Map<String, String> m = base();
    m.put("worker.queues", "default,GPU");
    assertThatThrownBy(() -> WorkerSettings.from(Config.of(m)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("worker.queues: queue 'GPU' must match");
    m.put("worker.queues", "default,");
    assertThatThrownBy(() -> WorkerSettings.from(Config.of(m)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("worker.queues='default,': an empty queue name");
    m.put("worker.queues", "default");
    m.put("worker.stop-grace", "10s");
    assertThatThrownBy(() -> WorkerSettings.from(Config.of(m)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(
            "worker.stop-grace (10s) must be shorter than worker.fence-margin (10s)");
    m.remove("worker.stop-grace");
    m.put("worker.group-protocol", "share");
    assertThatThrownBy(() -> WorkerSettings.from(Config.of(m)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("worker.group-protocol='share' must be classic or consumer");
  }

  @Test
  void claim_ahead_is_off_by_default_read_and_bounded() {
    assertThat(WorkerSettings.from(Config.of(base())).claimAhead()).isZero();
    Map<String, String> m = base();
    m.put("worker.claim-ahead", "50ms");
    WorkerSettings s = WorkerSettings.from(Config.of(m));
    assertThat(s.claimAhead()).isEqualTo(Duration.ofMillis(50));
    assertThat(s.describe()).contains("claimAhead=50ms");
    m.put("worker.claim-ahead", "2s");
    assertThatThrownBy(() -> WorkerSettings.from(Config.of(m)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("worker.claim-ahead")
        .hasMessageContaining("2s");
  }
}
