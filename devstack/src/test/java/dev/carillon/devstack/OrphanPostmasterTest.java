package dev.carillon.devstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a stack does with a postmaster.pid it finds on its data directory at start. */
class OrphanPostmasterTest {
  private static final Duration GRACE = Duration.ofSeconds(20);

  @TempDir Path pgData;

  @Test
  void no_pid_file_means_nothing_to_stop() {
    assertThat(OrphanPostmaster.stopIfRunning(pgData, GRACE)).isEmpty();
  }

  @Test
  void a_pid_file_naming_a_dead_process_is_left_to_postgres() throws Exception {
    Process done = new ProcessBuilder("true").start();
    assertThat(done.waitFor(10, TimeUnit.SECONDS)).isTrue();
    Path file = pidFile(done.pid(), pgData);

    assertThat(OrphanPostmaster.stopIfRunning(pgData, GRACE)).isEmpty();
    assertThat(file).exists();
  }

  @Test
  void a_pid_file_naming_a_live_process_that_is_not_postgres_is_removed() throws Exception {
    Path file = pidFile(ProcessHandle.current().pid(), pgData);

    assertThat(OrphanPostmaster.stopIfRunning(pgData, GRACE)).isEmpty();
    assertThat(file).doesNotExist();
    assertThat(ProcessHandle.current().isAlive()).isTrue();
  }

  @Test
  void the_postgres_of_another_directory_is_neither_stopped_nor_unlocked() throws Exception {
    DevStack other = DevStack.shared();
    Path otherPid = other.postgres().dataDir().resolve(OrphanPostmaster.PID_FILE);
    long pid = Long.parseLong(Files.readAllLines(otherPid).get(0).strip());
    Path file = pidFile(pid, pgData);

    assertThatThrownBy(() -> OrphanPostmaster.stopIfRunning(pgData, GRACE))
        .isInstanceOf(DevStackException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("names live process " + pid);
    assertThat(file).exists();
    assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isPresent();
    assertThat(other.createDatabase("orphan_other_dir")).contains("/orphan_other_dir_");
  }

  /** A postmaster.pid as PostgreSQL writes it, naming {@code pid} and {@code dir}. */
  private static Path pidFile(long pid, Path dir) throws Exception {
    return Files.write(
        dir.resolve(OrphanPostmaster.PID_FILE),
        List.of(
            Long.toString(pid),
            dir.toString(),
            "1796137828",
            "5432",
            "/tmp",
            "localhost",
            "  2147396        48",
            "ready   "));
  }
}
