package dev.carillon.bench.console;

import dev.carillon.bench.Percentiles;
import dev.carillon.devstack.DevStack;
import dev.carillon.devstack.DevStackOptions;
import dev.carillon.model.schedule.WindowKind;
import dev.carillon.model.task.TaskDefinition;
import dev.carillon.store.Database;
import dev.carillon.store.DbSettings;
import dev.carillon.store.TaskStore;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code bench/run.sh console [--instances 200000] [--rounds 200]}: the server time of each page of
 * the web console with {@code instances} instances in the table (and three events each), on a fresh
 * dev stack. Each page is the API calls it makes, made one after the other (the console makes some
 * at once, so this is the slower bound); the time is measured by an HTTP client on the same host.
 * Prints, as Markdown, p50, p95 and max per page over {@code rounds} rounds after 20 rounds of
 * warm-up, and whether every p95 is under 200 ms (exit code 1 when not, 2 for bad arguments).
 */
public final class ConsolePagesBench {
  /** The bar of issue 19: each page's server time p95 under this. */
  static final double P95_BAR_MS = 200;

  private static final int TASKS = 50;
  private static final int WARMUP = 20;

  private ConsolePagesBench() {}

  public static void main(String[] args) throws Exception {
    int instances = 200_000;
    int rounds = 200;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--instances" -> instances = positive(args, ++i);
        case "--rounds" -> rounds = positive(args, ++i);
        default -> {
          System.err.println("unknown argument '" + args[i] + "'; use --instances N --rounds N");
          System.exit(2);
        }
      }
    }
    try (DevStack stack = DevStack.start(DevStackOptions.defaults());
        Database db =
            Database.open(
                new DbSettings(
                    stack.createDatabase("bench_console"),
                    stack.dbUser(),
                    stack.dbPassword(),
                    4))) {
      new ConsolePagesBench.Run(stack, db, instances, rounds).run();
    }
  }

  private static int positive(String[] args, int i) {
    try {
      int n = Integer.parseInt(args[i]);
      if (n > 0) {
        return n;
      }
    } catch (RuntimeException e) {
      // refused below
    }
    System.err.println(
        args[i - 1]
            + " needs a positive whole number, was '"
            + (i < args.length ? args[i] : "")
            + "'");
    System.exit(2);
    return 0;
  }

  private record Run(DevStack stack, Database db, int instances, int rounds) {
    void run() throws Exception {
      long t0 = System.nanoTime();
      seed();
      System.err.printf(
          "seeded %d instances and %d events in %d s%n",
          instances, instances * 3L, (System.nanoTime() - t0) / 1_000_000_000);
      try (BenchApi api = BenchApi.start(stack, db)) {
        measure(api);
      }
    }

    /** 50 tasks; the instances spread over 30 days, 2% DEAD, some live; three events each. */
    private void seed() {
      List<TaskDefinition> defs = new ArrayList<>();
      for (int t = 0; t < TASKS; t++) {
        defs.add(
            TaskDefinition.builder(String.format("bench-%02d", t))
                .handler("noop")
                .cron("0 */5 * * * ?", ZoneId.of("Europe/Berlin"), WindowKind.EVERY_FIRE)
                .build());
      }
      new TaskStore(db.dsl()).applyAll(defs);
      long spacingMs = Duration.ofDays(30).toMillis() / instances;
      db.dsl()
          .execute(
              "insert into task_instance (task_id, window_key, window_start, window_end,"
                  + " scheduled_at, status, attempt, retry_count, max_retry, timeout_ms, worker_id,"
                  + " origin, fail_reason, started_at, finished_at, created_at, updated_at)"
                  + " select 'bench-' || lpad((g % ?)::text, 2, '0'), 'w' || g, s, s, s,"
                  + " case when g % 50 = 7 then 'DEAD' when g % 23 = 0 then 'SKIPPED'"
                  + " when g <= 40 then 'PENDING' when g <= 60 then 'RUNNING' else 'SUCCESS' end,"
                  + " 1, 0, 3, 60000, 'worker-' || (g % 4), 'SCHEDULE',"
                  + " case when g % 50 = 7 then 'retries used up (3 of 3); last failure: ' ||"
                  + " (array['timeout calling search', 'quota exceeded', 'HTTP 503 from the"
                  + " model'])[g % 3 + 1] end,"
                  + " s + interval '1 second', s + interval '3 seconds',"
                  + " s + (g % 900) * interval '1 millisecond', s + interval '3 seconds'"
                  + " from generate_series(1, ?) g,"
                  + " lateral (select now() - g * ? * interval '1 millisecond' as s) t",
              TASKS, instances, spacingMs);
      db.dsl()
          .execute(
              "insert into instance_event (instance_id, task_id, window_key, kind, from_status,"
                  + " to_status, attempt, actor, reason, created_at)"
                  + " select i.id, i.task_id, i.window_key, e.kind, e.f, e.t, e.a, e.actor, e.r,"
                  + " i.scheduled_at + e.o * interval '1 second' from task_instance i,"
                  + " (values ('CREATED', null, 'PENDING', null, 'trigger', null, 0),"
                  + " ('TRANSITION', 'PENDING', 'RUNNING', 1, 'worker-1', null, 1),"
                  + " ('TRANSITION', 'RUNNING', 'SUCCESS', 1, 'worker-1', 'done', 3))"
                  + " as e(kind, f, t, a, actor, r, o)");
      db.dsl().execute("vacuum analyze task_instance");
      db.dsl().execute("vacuum analyze instance_event");
    }

    private void measure(BenchApi api) {
      Random random = new Random(19);
      List<Long> ids = new ArrayList<>();
      Matcher m =
          Pattern.compile("\"id\":(\\d+),\"taskId\"").matcher(api.get("/instances?limit=500"));
      while (m.find()) {
        ids.add(Long.parseLong(m.group(1)));
      }
      Map<String, Function<Random, List<String>>> pages = new LinkedHashMap<>();
      pages.put("overview", r -> List.of("/overview"));
      pages.put("tasks", r -> List.of("/tasks?limit=100"));
      pages.put(
          "task",
          r -> {
            String t = String.format("bench-%02d", r.nextInt(TASKS));
            return List.of(
                "/tasks/" + t,
                "/instances?task=" + t + "&limit=30",
                "/tasks/" + t + "/next?count=10",
                "/tasks/" + t + "/retry");
          });
      pages.put("instances (first page, then the next)", r -> List.of("/instances?limit=50"));
      pages.put(
          "instances by task and status",
          r ->
              List.of(
                  "/instances?task="
                      + String.format("bench-%02d", r.nextInt(TASKS))
                      + "&status=DEAD,SKIPPED&limit=50"));
      pages.put(
          "instance",
          r -> {
            long id = ids.get(r.nextInt(ids.size()));
            return List.of(
                "/instances/" + id, "/instances/" + id + "/why", "/instances/" + id + "/attempts");
          });
      pages.put("dead letters", r -> List.of("/dead-letters?limit=200"));
      pages.put("retry tuning", r -> List.of("/config"));

      Map<String, double[]> times = new LinkedHashMap<>();
      pages.keySet().forEach(p -> times.put(p, new double[rounds]));
      for (int round = -WARMUP; round < rounds; round++) {
        for (Map.Entry<String, Function<Random, List<String>>> p : pages.entrySet()) {
          long t0 = System.nanoTime();
          for (String path : p.getValue().apply(random)) {
            String body = api.get(path);
            if (p.getKey().startsWith("instances (first")) {
              Matcher next = Pattern.compile("\"nextCursor\":\"([^\"]+)\"").matcher(body);
              if (next.find()) {
                api.get("/instances?limit=50&cursor=" + next.group(1));
              }
            }
          }
          if (round >= 0) {
            times.get(p.getKey())[round] = (System.nanoTime() - t0) / 1e6;
          }
        }
      }
      report(times);
    }

    private void report(Map<String, double[]> times) {
      System.out.printf(
          "%n### Console pages with %,d instances (%d rounds, %d cores)%n%n",
          instances, rounds, Runtime.getRuntime().availableProcessors());
      System.out.println("| page | API calls | p50 ms | p95 ms | max ms |");
      System.out.println("| --- | --- | ---: | ---: | ---: |");
      boolean ok = true;
      for (Map.Entry<String, double[]> e : times.entrySet()) {
        double p95 = Percentiles.of(e.getValue(), 95);
        ok &= p95 < P95_BAR_MS;
        System.out.printf(
            Locale.ROOT,
            "| %s | %s | %.1f | %.1f | %.1f |%n",
            e.getKey(),
            calls(e.getKey()),
            Percentiles.median(e.getValue()),
            p95,
            Percentiles.of(e.getValue(), 100));
      }
      System.out.printf("%nEvery page's p95 under %.0f ms: %s%n", P95_BAR_MS, ok ? "yes" : "NO");
      if (!ok) {
        System.exit(1);
      }
    }

    private static String calls(String page) {
      return switch (page) {
        case "task" -> "4";
        case "instance" -> "3";
        case "instances (first page, then the next)" -> "2";
        default -> "1";
      };
    }
  }
}
