package dev.carillon.worker.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.api.AgentContext;
import dev.carillon.api.AgentResult;
import dev.carillon.api.AgentTask;
import dev.carillon.model.instance.InstanceStatus;
import dev.carillon.store.Outcome;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class PluginExecutionTest {

  private static WorkerAgentContext context() {
    return new WorkerAgentContext(
        RunStateTest.runIn(RunState.QUEUED).instance,
        "{}",
        Instant.EPOCH,
        Instant.EPOCH,
        new RunProgress(),
        Clock.fixed(Instant.EPOCH, ZoneOffset.UTC),
        // These plugins keep no checkpoints or effects; the records are never asked for.
        null);
  }

  /** A plugin that waits until interrupted, and says whether it saw the flag set first. */
  private static final class Blocking implements AgentTask {
    final CountDownLatch started = new CountDownLatch(1);
    final AtomicBoolean sawCancelled = new AtomicBoolean();

    @Override
    public String type() {
      return "blocking";
    }

    @Override
    public AgentResult run(AgentContext context) throws Exception {
      started.countDown();
      try {
        new CountDownLatch(1).await();
        return AgentResult.of("never");
      } catch (InterruptedException e) {
        sawCancelled.set(context.isCancelled());
        throw e;
      }
    }
  }

  @Test
  void stopping_a_running_plugin_sets_its_cancellation_and_interrupts_it() throws Exception {
    Blocking plugin = new Blocking();
    PluginExecution execution = new PluginExecution(plugin, context(), 4096);
    CompletableFuture<Outcome> outcome = CompletableFuture.supplyAsync(execution::execute);
    assertThat(plugin.started.await(10, TimeUnit.SECONDS)).as("the plugin started").isTrue();

    execution.stop();

    Outcome ended = outcome.get(10, TimeUnit.SECONDS);
    assertThat(ended.status()).isEqualTo(InstanceStatus.FAILED);
    assertThat(ended.reason()).startsWith("java.lang.InterruptedException");
    assertThat(plugin.sawCancelled).as("flag set before the interrupt").isTrue();
  }

  @Test
  void a_plugin_stopped_before_it_starts_starts_cancelled_and_interrupted() {
    Blocking plugin = new Blocking();
    PluginExecution execution = new PluginExecution(plugin, context(), 4096);
    execution.stop();

    Outcome ended = execution.execute();

    assertThat(ended.status()).isEqualTo(InstanceStatus.FAILED);
    assertThat(plugin.sawCancelled).isTrue();
    Thread.interrupted(); // the interrupt was meant for the plugin; clear it for this thread
  }

  @Test
  void a_stop_after_the_plugin_returned_does_not_interrupt_the_thread() {
    AgentTask quick =
        new AgentTask() {
          @Override
          public String type() {
            return "quick";
          }

          @Override
          public AgentResult run(AgentContext context) {
            return AgentResult.of("done");
          }
        };
    PluginExecution execution = new PluginExecution(quick, context(), 4096);

    Outcome ended = execution.execute();
    execution.stop();

    assertThat(ended.status()).isEqualTo(InstanceStatus.SUCCESS);
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
  }

  @Test
  void a_plugin_that_returns_null_fails_naming_its_class() {
    AgentTask nothing =
        new AgentTask() {
          @Override
          public String type() {
            return "nothing";
          }

          @Override
          public AgentResult run(AgentContext context) {
            return null;
          }
        };

    Outcome ended = new PluginExecution(nothing, context(), 4096).execute();

    assertThat(ended.status()).isEqualTo(InstanceStatus.FAILED);
    assertThat(ended.reason()).contains("returned null instead of a result");
    assertThat(ended.nonRetryable()).isFalse();
  }
}
