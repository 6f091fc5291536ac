package dev.carillon.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The Carillon services as separate OS processes ({@code java -jar <module>-all.jar}), configured
 * only through {@code CARILLON_*} environment variables, each with its own admin port, instance id
 * and log file. Kill, freeze and resume act on real process ids.
 */
final class Services implements AutoCloseable {
  enum Role {
    TRIGGER("trigger-service"),
    WORKER("worker-service"),
    RETRY("retry-service");

    final String module;

    Role(String module) {
      this.module = module;
    }
  }

  /**
   * One running service process. The name doubles as its {@code CARILLON_INSTANCE_ID}; {@code
   * address} is where its admin port answers (its namespace's address, or loopback).
   */
  record Service(String name, Role role, String address, int adminPort, Process process, Path log) {
    long pid() {
      return process.pid();
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private final Path root;
  private final Path runDir;
  private final Path pluginDir;
  private final StackProcess.Endpoints endpoints;
  private final NetworkNamespaces lab;
  private final Map<String, Service> byName = new ConcurrentHashMap<>();
  private final Map<String, Integer> restarts = new ConcurrentHashMap<>();
  private final Map<String, Long> peakRssKb = new ConcurrentHashMap<>();
  private final Map<String, Map<String, String>> extraEnv = new ConcurrentHashMap<>();

  /**
   * @param lab when not null, every service runs in a network namespace of its own (the same one
   *     across restarts), so that its links to the servers can be cut
   */
  Services(
      Path root,
      Path runDir,
      Path pluginDir,
      StackProcess.Endpoints endpoints,
      NetworkNamespaces lab) {
    this.root = root;
    this.runDir = runDir;
    this.pluginDir = pluginDir;
    this.endpoints = endpoints;
    this.lab = lab;
  }

  /** The namespace {@code s} runs in, if services run in namespaces. */
  Optional<NetworkNamespaces.Host> host(Service s) {
    return lab == null ? Optional.empty() : Optional.of(lab.host(s.name()));
  }

  static String javaBin() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  Path jar(Role role) {
    Path jar =
        root.resolve(role.module).resolve("target/" + role.module + "-0.1.0-SNAPSHOT-all.jar");
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          jar + " is missing: build with ./mvnw -B -pl faults -am verify");
    }
    return jar;
  }

  /** Environment that {@code name} gets on every start, on top of the defaults below. */
  void environment(String name, Map<String, String> env) {
    extraEnv.put(name, Map.copyOf(env));
  }

  /**
   * Runs a deploy step ({@code migrate}, {@code create-topics}) with a service's jar, as the
   * compose one-shots and the Kubernetes Jobs do, and waits for it to exit 0.
   */
  void runStep(Role role, String step) {
    Path log = runDir.resolve(step + ".log");
    ProcessBuilder pb =
        new ProcessBuilder(javaBin(), "-Xmx160m", "-jar", jar(role).toString(), step)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().keySet().removeIf(k -> k.startsWith("CARILLON_"));
    pb.environment().putAll(commonEnv());
    try {
      Process p = pb.start();
      if (!p.waitFor(2, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IllegalStateException(step + " did not finish within 2 minutes; see " + log);
      }
      if (p.exitValue() != 0) {
        throw new IllegalStateException(step + " exited " + p.exitValue() + "; see " + log);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + step, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private Map<String, String> commonEnv() {
    Map<String, String> env = new HashMap<>();
    env.put("CARILLON_DB_URL", endpoints.dbUrl());
    env.put("CARILLON_DB_USER", endpoints.dbUser());
    env.put("CARILLON_DB_PASSWORD", endpoints.dbPassword());
    env.put("CARILLON_DB_POOL_SIZE", "6");
    env.put("CARILLON_KAFKA_BOOTSTRAP", endpoints.kafka());
    // A dead consumer's partitions move to the others after this, not after Kafka's 45 s default.
    env.put("CARILLON_KAFKA_PROPERTIES_SESSION_TIMEOUT_MS", "10000");
    env.put("CARILLON_ZK_CONNECT", endpoints.zk());
    // A killed leader's ephemeral node goes after this, so a standby takes over quickly.
    env.put("CARILLON_ZK_SESSION_TIMEOUT", "4s");
    env.put("CARILLON_KAFKA_INSTANCES_PARTITIONS", Integer.toString(INSTANCE_PARTITIONS));
    return env;
  }

  /** Partitions of the instances topic: more than the suite's three workers. */
  static final int INSTANCE_PARTITIONS = 6;

  /** Starts (or restarts, keeping name and admin port) a service. */
  Service start(String name, Role role) {
    Service old = byName.get(name);
    int port = old != null ? old.adminPort() : freePort();
    Map<String, String> env = commonEnv();
    env.put("CARILLON_ADMIN_PORT", Integer.toString(port));
    env.put("CARILLON_INSTANCE_ID", name);
    switch (role) {
      case WORKER -> {
        env.put("CARILLON_WORKER_PLUGIN_DIR", pluginDir.toString());
        env.put("CARILLON_WORKER_CONCURRENCY", "16");
        env.put("CARILLON_WORKER_DRAIN_TIMEOUT", "5s");
      }
      case RETRY -> {
        env.put("CARILLON_RETRY_STRANDED_AFTER", "20s");
        env.put("CARILLON_RETRY_UNDISPATCHED_AFTER", "15s");
      }
      case TRIGGER -> {
        env.put("CARILLON_TRIGGER_REDISPATCH_AFTER", "30s");
        // Every trigger serves the API; here on a free port, local only, and unused.
        env.put("CARILLON_API_PORT", "0");
        env.put("CARILLON_API_BIND_ADDRESS", "127.0.0.1");
        env.put("CARILLON_API_INSECURE_LOCAL", "true");
      }
    }
    env.putAll(extraEnv.getOrDefault(name, Map.of()));
    Path log = runDir.resolve(name + ".log");
    List<String> cmd = new ArrayList<>();
    cmd.add(javaBin());
    cmd.addAll(
        List.of(
            "-Xmx160m",
            "-Xss512k",
            "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1",
            "-Djava.io.tmpdir=" + runDir,
            "-jar",
            jar(role).toString()));
    String address = "127.0.0.1";
    if (lab != null) {
      NetworkNamespaces.Host host = lab.host(name);
      cmd = host.wrap(cmd);
      address = host.address();
    }
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().keySet().removeIf(k -> k.startsWith("CARILLON_"));
    pb.environment().putAll(env);
    try {
      Service s = new Service(name, role, address, port, pb.start(), log);
      byName.put(name, s);
      if (old != null) {
        restarts.merge(name, 1, Integer::sum);
      }
      return s;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name, e);
    }
  }

  List<Service> all() {
    return List.copyOf(byName.values());
  }

  List<Service> of(Role role) {
    return byName.values().stream()
        .filter(s -> s.role() == role)
        .sorted(java.util.Comparator.comparing(Service::name))
        .toList();
  }

  Service get(String name) {
    return byName.get(name);
  }

  /** {@code kill -9}: no shutdown hook, no release, no goodbye to ZooKeeper or Kafka. */
  void kill9(Service s) {
    notePeak(s.name(), s.pid());
    s.process().destroyForcibly();
    try {
      s.process().waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  void freeze(Service s) {
    signal(s, "STOP");
  }

  void resume(Service s) {
    signal(s, "CONT");
  }

  private static void signal(Service s, String sig) {
    try {
      Process p = new ProcessBuilder("kill", "-" + sig, Long.toString(s.pid())).start();
      if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("kill -" + sig + " " + s.pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The {@code /health/ready} JSON of a service, or empty when it does not answer. */
  Optional<JsonNode> health(Service s) {
    return health(s, 1);
  }

  /** {@link #health(Service)}, asked up to {@code tries} times until it answers. */
  Optional<JsonNode> health(Service s, int tries) {
    Optional<HttpResponse<String>> r = Optional.empty();
    for (int i = 0; i < tries && r.isEmpty(); i++) {
      r = get(s, "/health/ready");
    }
    if (r.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(JSON.readTree(r.get().body()));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** The {@code /metrics} text of a service, or empty when it does not answer. */
  Optional<String> metrics(Service s) {
    return get(s, "/metrics").map(HttpResponse::body);
  }

  /**
   * A service's {@code /health/live} as an orchestrator's probe sees it: asked up to {@code tries}
   * times in a row (each within 2 s), the first answer counts; empty when none came. One unanswered
   * request says nothing about liveness on a machine at load 20 (Kubernetes restarts a container
   * only after its probe's failure threshold, 3 by default). The answer is its status, and for any
   * but 200 the body too (which names what stalled), at most 400 characters.
   */
  Optional<String> liveAnswer(Service s, int tries) {
    return live(s, tries)
        .map(
            r -> {
              if (r.statusCode() == 200) {
                return "200";
              }
              String body = r.body().strip();
              return r.statusCode()
                  + " "
                  + (body.length() > 400 ? body.substring(0, 400) + "..." : body);
            });
  }

  private Optional<HttpResponse<String>> live(Service s, int tries) {
    for (int i = 0; i < tries; i++) {
      Optional<HttpResponse<String>> answer = get(s, "/health/live");
      if (answer.isPresent()) {
        return answer;
      }
    }
    return Optional.empty();
  }

  /** {@code GET path} on a service's admin port within 2 s, or empty when it does not answer. */
  private static Optional<HttpResponse<String>> get(Service s, String path) {
    try {
      return Optional.of(
          HTTP.send(
              HttpRequest.newBuilder(
                      URI.create("http://" + s.address() + ":" + s.adminPort() + path))
                  .timeout(Duration.ofSeconds(2))
                  .build(),
              HttpResponse.BodyHandlers.ofString()));
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /**
   * The sum of a Prometheus series in a {@code /metrics} text: the lines of {@code name} (with or
   * without labels) whose labels contain {@code labels} (e.g. {@code result="deferred"}; empty for
   * any); 0 when there is none.
   */
  static double metric(String text, String name, String labels) {
    double sum = 0;
    for (String line : text.split("\n")) {
      boolean plain = line.startsWith(name + " ") && labels.isEmpty();
      boolean labelled =
          line.startsWith(name + "{") && line.substring(0, line.indexOf('}') + 1).contains(labels);
      if (plain || labelled) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  /** The live process of {@code role} whose health says it leads, if exactly one does. */
  Optional<Service> leader(Role role) {
    List<Service> leaders =
        of(role).stream()
            .filter(s -> s.process().isAlive())
            .filter(s -> health(s).map(h -> h.path("leader").asBoolean(false)).orElse(false))
            .toList();
    return leaders.size() == 1 ? Optional.of(leaders.get(0)) : Optional.empty();
  }

  /** Sum of one Prometheus counter over every live service of {@code role}. */
  double counter(Role role, String metricName) {
    double sum = 0;
    for (Service s : of(role)) {
      sum += counter(s, metricName);
    }
    return sum;
  }

  /** One Prometheus counter of one service (0 when it does not answer). */
  double counter(Service s, String metricName) {
    double sum = 0;
    for (String line : metrics(s).orElse("").split("\n")) {
      if (line.startsWith(metricName + "{") || line.startsWith(metricName + " ")) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
  }

  /**
   * The memory high-water mark of each service name: the largest resident set ({@code VmHWM} in
   * {@code /proc/PID/status}) of any of its processes, read before each kill and now for the live
   * ones; empty where {@code /proc} is not there.
   */
  Map<String, Long> peakRssKb() {
    for (Service s : byName.values()) {
      if (s.process().isAlive()) {
        notePeak(s.name(), s.pid());
      }
    }
    return new java.util.TreeMap<>(peakRssKb);
  }

  private void notePeak(String name, long pid) {
    vmHwmKb(pid).ifPresent(kb -> peakRssKb.merge(name, kb, Math::max));
  }

  /** {@code VmHWM} of a process in KiB, if readable. */
  static Optional<Long> vmHwmKb(long pid) {
    try {
      return Files.readAllLines(Path.of("/proc/" + pid + "/status")).stream()
          .filter(l -> l.startsWith("VmHWM:"))
          .map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")))
          .findFirst();
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Graceful stop (SIGTERM) of everything still running; stragglers are killed. */
  @Override
  public void close() {
    for (Service s : byName.values()) {
      if (s.process().isAlive()) {
        // A frozen process cannot handle SIGTERM.
        resume(s);
        s.process().destroy();
      }
    }
    for (Service s : byName.values()) {
      try {
        if (!s.process().waitFor(30, TimeUnit.SECONDS)) {
          s.process().destroyForcibly();
        }
      } catch (InterruptedException e) {
        s.process().destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }
}
