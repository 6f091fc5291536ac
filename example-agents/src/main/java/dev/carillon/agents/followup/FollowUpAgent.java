package dev.carillon.agents.followup;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.carillon.api.AgentContext;
import dev.carillon.api.AgentResult;
import dev.carillon.api.AgentTask;
import dev.carillon.api.NonRetryableException;
import dev.carillon.client.CarillonApiException;
import dev.carillon.client.CarillonClient;
import dev.carillon.client.model.RunResult;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Handler {@code follow-up}: an agent that does one step of a job of several and schedules the next
 * step itself, as a run of its own task through the HTTP API ({@link CarillonClient#runNow}), the
 * client guide's example (docs/client-guide.md, "An agent that schedules its own follow-up").
 *
 * <p>The follow-up is keyed: its {@code Idempotency-Key} is derived from {@link
 * AgentContext#idempotencyKey()}, which every attempt of one instance shares, and the next step's
 * number. A retried or re-run attempt of a step (its first attempt scheduled the follow-up and then
 * failed, or the worker died before recording the outcome) therefore gets the same follow-up
 * instance back instead of creating a second one.
 *
 * <table>
 *   <caption>params</caption>
 *   <tr><th>key</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>step</td><td>1</td><td>this run's step, 1..steps; the follow-up's params override
 *       sets it to the next one</td></tr>
 *   <tr><td>steps</td><td>1</td><td>how many steps the job has, 1..100: the last schedules
 *       nothing</td></tr>
 * </table>
 *
 * <p>The API is named by {@code CARILLON_API_URL} and {@code CARILLON_API_TOKEN} in the worker's
 * environment (an operator token: run-now changes state), read at the first run, so a worker
 * without them still loads the plugin; a step that needs them fails permanently naming them. An API
 * that does not answer fails the attempt retryably (the retry sends the same key); an API that
 * refuses (a 4xx: a viewer token, a deleted task) fails it permanently with the API's reason.
 */
public final class FollowUpAgent implements AgentTask {
  /** The handler name. */
  public static final String TYPE = "follow-up";

  /** The most steps a job may have. */
  public static final int MAX_STEPS = 100;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Supplier<CarillonClient> clients;
  private volatile CarillonClient client;

  /**
   * Creates the agent with a client from the worker's environment, made at the first run; {@link
   * java.util.ServiceLoader} needs this public no-argument constructor.
   */
  public FollowUpAgent() {
    this(CarillonClient::fromEnvironment);
  }

  /**
   * Creates the agent with the client it uses to schedule follow-ups (an application embedding a
   * worker, a test).
   *
   * @param client the client; its token must have the operator role
   */
  public FollowUpAgent(CarillonClient client) {
    this(() -> client);
    Objects.requireNonNull(client, "client");
  }

  FollowUpAgent(Supplier<CarillonClient> clients) {
    this.clients = clients;
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public AgentResult run(AgentContext context) {
    int steps = number(context.paramsJson(), "steps", 1);
    int step = number(context.paramsJson(), "step", 1);
    if (step > steps) {
      throw new NonRetryableException(
          "follow-up: step=" + step + " is beyond steps=" + steps + " (params)");
    }
    context.heartbeat("step " + step + " of " + steps);
    // ... this step's work would go here ...
    if (step == steps) {
      return AgentResult.of("step " + step + " of " + steps + " done; the last, no follow-up");
    }
    int next = step + 1;
    String key = "follow-up/" + context.idempotencyKey() + "/step-" + next;
    RunResult run;
    try {
      run = client().runNow(context.taskId(), Map.of("step", next), key);
    } catch (CarillonApiException e) {
      if (e.isClientError()) {
        throw new NonRetryableException(
            "follow-up: the API refused the run of step " + next + ": " + e.getMessage(), e);
      }
      throw e;
    }
    return AgentResult.of(
        "step "
            + step
            + " of "
            + steps
            + " done; step "
            + next
            + " is instance "
            + run.instance().id()
            + (run.created() ? " (scheduled now)" : " (already scheduled by an earlier attempt)"));
  }

  private CarillonClient client() {
    CarillonClient c = client;
    if (c == null) {
      try {
        c = clients.get();
      } catch (IllegalArgumentException e) {
        throw new NonRetryableException(
            "follow-up: no API to schedule the next step with: set "
                + CarillonClient.ENV_URL
                + " and "
                + CarillonClient.ENV_TOKEN
                + " in the worker's environment ("
                + e.getMessage()
                + ")",
            e);
      }
      client = c;
    }
    return c;
  }

  /** A whole-number param from 1 to {@link #MAX_STEPS}, or {@code absent}. */
  static int number(String paramsJson, String name, int absent) {
    JsonNode params;
    try {
      params = JSON.readTree(paramsJson == null || paramsJson.isBlank() ? "{}" : paramsJson);
    } catch (IOException e) {
      throw new NonRetryableException("follow-up: params are not JSON: " + e.getMessage(), e);
    }
    JsonNode v = params.get(name);
    if (v == null || v.isNull()) {
      return absent;
    }
    if (!v.canConvertToInt() || !v.isIntegralNumber() || v.asInt() < 1 || v.asInt() > MAX_STEPS) {
      throw new NonRetryableException(
          "follow-up: " + name + "=" + v + " must be a whole number from 1 to " + MAX_STEPS);
    }
    return v.asInt();
  }
}
