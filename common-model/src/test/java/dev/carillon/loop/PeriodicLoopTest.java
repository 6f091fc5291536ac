package dev.carillon.loop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.loop.PeriodicLoop.StopMode;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class PeriodicLoopTest {
  private static final Duration LONG = Duration.ofHours(1);
  private static final Duration WAIT = Duration.ofSeconds(10);

  private static boolean opened(CountDownLatch latch) throws InterruptedException {
    return latch.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Test
  void rounds_repeat_until_the_loop_is_stopped() throws Exception {
    CountDownLatch threeRounds = new CountDownLatch(3);
    PeriodicLoop loop =
        new PeriodicLoop(
            "rounds", Pace.fixedDelay(Duration.ZERO), StopMode.INTERRUPT, threeRounds::countDown);

    assertThat(loop.start()).isTrue();
    assertThat(opened(threeRounds)).as("three rounds ran").isTrue();
    assertThat(loop.stopAndWait(WAIT)).as("the thread ended").isTrue();
    assertThat(loop.isRunning()).isFalse();
  }

  @Test
  void a_round_that_throws_is_followed_by_the_next_round() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    CountDownLatch recovered = new CountDownLatch(1);
    PeriodicLoop loop =
        new PeriodicLoop(
            "failing",
            Pace.fixedDelay(Duration.ZERO, LONG, Duration.ZERO),
            StopMode.INTERRUPT,
            () -> {
              if (calls.incrementAndGet() <= 2) {
                throw new IllegalStateException("database down");
              }
              recovered.countDown();
            });

    loop.start();

    assertThat(opened(recovered)).as("the third round ran after two failures").isTrue();
    assertThat(loop.isRunning()).isTrue();
    assertThat(loop.stopAndWait(WAIT)).isTrue();
    assertThat(calls).as("the pause after a success is an hour: no fourth round").hasValue(3);
  }

  @Test
  void finish_round_lets_the_round_in_progress_end_undisturbed_and_starts_no_other()
      throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean interrupted = new AtomicBoolean();
    AtomicInteger rounds = new AtomicInteger();
    PeriodicLoop loop =
        new PeriodicLoop(
            "finishing",
            Pace.fixedDelay(Duration.ZERO),
            StopMode.FINISH_ROUND,
            () -> {
              rounds.incrementAndGet();
              entered.countDown();
              release.await();
              interrupted.set(Thread.currentThread().isInterrupted());
            });
    loop.start();
    assertThat(opened(entered)).isTrue();

    loop.stop();
    release.countDown();

    assertThat(loop.stopAndWait(WAIT)).isTrue();
    assertThat(interrupted).as("the round was not interrupted").isFalse();
    assertThat(rounds).as("no round after the stop").hasValue(1);
  }

  @Test
  void interrupt_ends_a_blocking_round_at_once() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    AtomicBoolean sawInterrupt = new AtomicBoolean();
    PeriodicLoop loop =
        new PeriodicLoop(
            "interrupting",
            Pace.fixedDelay(Duration.ZERO),
            StopMode.INTERRUPT,
            () -> {
              entered.countDown();
              try {
                new CountDownLatch(1).await();
              } catch (InterruptedException e) {
                sawInterrupt.set(true);
                throw e;
              }
            });
    loop.start();
    assertThat(opened(entered)).isTrue();

    assertThat(loop.stopAndWait(WAIT)).as("the blocked round ended").isTrue();
    assertThat(sawInterrupt).isTrue();
  }

  @Test
  void a_stop_cuts_the_wait_before_the_next_round_short_in_either_mode() throws Exception {
    for (StopMode mode : StopMode.values()) {
      CountDownLatch firstRound = new CountDownLatch(1);
      PeriodicLoop loop =
          new PeriodicLoop("waiting-" + mode, Pace.fixedDelay(LONG), mode, firstRound::countDown);
      loop.start();
      assertThat(opened(firstRound)).isTrue();

      assertThat(loop.stopAndWait(WAIT)).as("%s: the hour's wait was cut short", mode).isTrue();
    }
  }

  @Test
  void start_is_idempotent_and_a_stopped_loop_starts_again_running_on_start_each_time()
      throws Exception {
    AtomicInteger starts = new AtomicInteger();
    CountDownLatch[] round = {new CountDownLatch(1)};
    PeriodicLoop loop =
        new PeriodicLoop(
            "restart",
            Pace.fixedDelay(LONG),
            StopMode.INTERRUPT,
            starts::incrementAndGet,
            () -> round[0].countDown());

    assertThat(loop.start()).isTrue();
    assertThat(loop.start()).as("already running").isFalse();
    assertThat(opened(round[0])).isTrue();
    assertThat(loop.stopAndWait(WAIT)).isTrue();
    loop.stop();

    round[0] = new CountDownLatch(1);
    assertThat(loop.start()).isTrue();
    assertThat(opened(round[0])).as("a round after the restart").isTrue();
    assertThat(starts).hasValue(2);
    assertThat(loop.stopAndWait(WAIT)).isTrue();
  }
}
