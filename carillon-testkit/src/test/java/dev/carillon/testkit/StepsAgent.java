package dev.carillon.testkit;

import dev.carillon.api.AgentContext;
import dev.carillon.api.AgentResult;
import dev.carillon.api.AgentTask;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The test kit's resumable agent, handler {@code steps}, registered in this module's test {@code
 * META-INF/services} so that a worker process on the test class path has it: it checkpoints after
 * each of {@code steps} steps, resuming after the last checkpoint, then posts once to the directory
 * {@code sink} (one new file per post, so that a second post shows), then, if this attempt posted,
 * works {@code holdAfterPostMs} more before it finishes.
 */
public final class StepsAgent implements AgentTask {
  @Override
  public String type() {
    return "steps";
  }

  @Override
  public AgentResult run(AgentContext context) throws Exception {
    String params = context.paramsJson();
    int steps = Integer.parseInt(value(params, "steps", "3"));
    long holdMs = Long.parseLong(value(params, "holdAfterPostMs", "0"));
    int next =
        context
            .lastCheckpoint()
            .map(c -> Integer.parseInt(value(c.stateJson(), "next", "0")))
            .orElse(0);
    int resumedAt = next;
    for (; next < steps; next++) {
      context.checkpoint("{\"next\":" + (next + 1) + "}");
    }
    AtomicBoolean postedNow = new AtomicBoolean();
    String receipt =
        context.once(
            "post",
            call -> {
              Path sink = Path.of(value(params, "sink", null));
              Path post = Files.createTempFile(sink, "post-", ".txt");
              Files.writeString(post, call.idempotencyKey());
              postedNow.set(true);
              return post.getFileName().toString();
            });
    if (postedNow.get() && holdMs > 0) {
      // The agent's slow last step; a kill lands here.
      Thread.sleep(holdMs);
    }
    return AgentResult.of("resumed at " + resumedAt + ", posted " + receipt);
  }

  private static String value(String json, String key, String fallback) {
    Matcher m = Pattern.compile("\"" + key + "\":\"?([^\",}]*)").matcher(json);
    if (m.find()) {
      return m.group(1);
    }
    if (fallback == null) {
      throw new IllegalArgumentException("steps: param '" + key + "' is missing in " + json);
    }
    return fallback;
  }
}
