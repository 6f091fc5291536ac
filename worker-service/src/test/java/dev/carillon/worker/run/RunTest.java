package dev.carillon.worker.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class RunTest {
  private static final int ROUNDS = 2_000;

  private final ExecutorService threads = Executors.newFixedThreadPool(4);

  @AfterEach
  void stop() throws InterruptedException {
    threads.shutdownNow();
    assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  /** Runs the tasks at once (behind one start gate) and returns their results in order. */
  private <T> List<T> race(List<Callable<T>> tasks) throws Exception {
    CountDownLatch gate = new CountDownLatch(1);
    List<Future<T>> futures = new ArrayList<>();
    for (Callable<T> task : tasks) {
      futures.add(
          threads.submit(
              () -> {
                gate.await();
                return task.call();
              }));
    }
    gate.countDown();
    List<T> out = new ArrayList<>();
    for (Future<T> f : futures) {
      out.add(f.get(10, TimeUnit.SECONDS));
    }
    return out;
  }

  @Test
  void of_the_agent_the_deadline_the_heartbeat_and_the_shutdown_exactly_one_ends_a_running_run()
      throws Exception {
    RunState[] ends = {
      RunState.COMPLETING, RunState.TIMED_OUT, RunState.LEASE_LOST, RunState.RELEASED
    };
    for (int round = 0; round < ROUNDS; round++) {
      Run run = RunStateTest.runIn(RunState.RUNNING);
      List<Callable<Boolean>> movers = new ArrayList<>();
      for (RunState end : ends) {
        movers.add(() -> run.move(RunState.RUNNING, end));
      }
      List<Boolean> won = race(movers);
      assertThat(won).as("round %d", round).containsOnlyOnce(true);
      assertThat(run.state()).isEqualTo(ends[won.indexOf(true)]);
    }
  }

  @Test
  void a_run_leaves_the_pool_exactly_once_when_its_thread_ended_and_its_end_was_written()
      throws Exception {
    for (int round = 0; round < ROUNDS; round++) {
      Run run = RunStateTest.runIn(RunState.RUNNING);
      assertThat(run.move(RunState.RUNNING, RunState.COMPLETING)).isTrue();
      List<Boolean> retire = race(List.of(run::threadEnded, run::endWritten));
      assertThat(retire).as("round %d", round).containsOnlyOnce(true);
      assertThat(run.threadEnded()).as("a second call never retires it again").isFalse();
    }
  }

  @Test
  void a_run_that_writes_no_end_leaves_when_its_thread_ends() {
    Run run = RunStateTest.runIn(RunState.RUNNING);
    assertThat(run.move(RunState.RUNNING, RunState.LEASE_LOST)).isTrue();
    assertThat(run.threadEnded()).isTrue();
  }

  @Test
  void a_run_that_cannot_run_here_leaves_when_its_failure_is_written() {
    Run run = Run.unrunnable(RunStateTest.runIn(RunState.QUEUED).instance, System.nanoTime());
    assertThat(run.state()).isEqualTo(RunState.COMPLETING);
    assertThat(run.endWritten()).isTrue();
  }
}
