package dev.carillon.bench;

/**
 * The steady workload with {@code clients} HTTP API clients listing instances ({@link ApiLoad})
 * from the plan's first fire to its last: the API's latency under the scheduler's steady load, and
 * the fire lag to set beside a steady run without the clients (run both: {@code --workload
 * steady,api}). Only a system that serves an API ({@link SchedulerUnderTest#api()}) can run it.
 */
public final class ApiWorkload implements Workload {
  private final SteadyWorkload steady;
  private final int rate;
  private final java.time.Duration duration;
  private final int clients;

  public ApiWorkload(SteadyWorkload steady, int rate, java.time.Duration duration, int clients) {
    this.steady = steady;
    this.rate = rate;
    this.duration = duration;
    this.clients = clients;
  }

  @Override
  public String name() {
    return "api";
  }

  @Override
  public RunResult.Api run(SchedulerUnderTest system, String systemName, RunContext ctx)
      throws InterruptedException {
    SchedulerUnderTest.ApiAccess api =
        system
            .api()
            .orElseThrow(
                () ->
                    new BenchException(
                        systemName + " serves no HTTP API; the api workload runs on Carillon"));
    if (api.tokens().size() < clients) {
      throw new BenchException(
          systemName
              + " has "
              + api.tokens().size()
              + " API tokens for "
              + clients
              + " clients; pass a smaller --api-clients");
    }
    ApiLoad[] load = new ApiLoad[1];
    SteadyWorkload.Window w =
        steady.run(
            system,
            systemName,
            ctx,
            (from, until) ->
                load[0] =
                    ApiLoad.start(
                        api.base(), api.tokens().subList(0, clients), ctx.clock(), from, until));
    if (load[0] == null) {
      throw new BenchException("the API clients never started");
    }
    return new RunResult.Api(
        systemName, rate, duration, w.tasks(), w.check(), clients, load[0].stats());
  }
}
