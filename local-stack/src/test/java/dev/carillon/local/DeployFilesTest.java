package dev.carillon.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.alert.AlertSettings;
import dev.carillon.config.CommonSettings;
import dev.carillon.config.Config;
import dev.carillon.control.ApiSettings;
import dev.carillon.metrics.TaskLabel;
import dev.carillon.retry.RetrySettings;
import dev.carillon.trace.Tracing;
import dev.carillon.trigger.TriggerService;
import dev.carillon.trigger.TriggerSettings;
import dev.carillon.worker.WorkerSettings;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * Checks {@code deploy/} against the code, since no Docker engine or cluster runs here: the jars
 * the Dockerfiles copy are built with the main class they need, every {@code CARILLON_*} variable
 * is one a service reads, health checks and probes hit the admin port and its real paths, and no
 * secret sits in a ConfigMap or an inline variable. This module depends on every service, so the
 * settings classes and main classes are all on the test class path.
 *
 * <p>YAML is read with SnakeYAML (which resolves compose's {@code <<: *anchor} merges); it comes
 * with jackson-dataformat-yaml.
 */
class DeployFilesTest {
  private static final Path ROOT = repositoryRoot();
  private static final Path DEPLOY = ROOT.resolve("deploy");
  private static final Pattern COPY_JAR =
      Pattern.compile("(?m)^COPY\\s+([a-z0-9-]+)/target/([a-z0-9-]+)-\\*-all\\.jar\\s");
  private static final Pattern DOCKER_ENV = Pattern.compile("(?m)^ENV\\s+(CARILLON_\\w+)=(\\S+)");
  private static final Pattern HEALTH_URL =
      Pattern.compile("(?m)^\\s*CMD .*http://127\\.0\\.0\\.1:(\\d+)(/health/\\w+)");
  private static final Pattern EXPOSE = Pattern.compile("(?m)^EXPOSE\\s+(\\d+)");

  /** The services the deploy files describe, by directory and k8s file name. */
  private enum Service {
    TRIGGER("trigger", TriggerService.DEFAULT_ADMIN_PORT),
    WORKER("worker", WorkerSettings.DEFAULT_ADMIN_PORT),
    RETRY("retry", RetrySettings.DEFAULT_ADMIN_PORT);

    final String dir;
    final int defaultAdminPort;

    Service(String dir, int defaultAdminPort) {
      this.dir = dir;
      this.defaultAdminPort = defaultAdminPort;
    }

    /** The configuration keys the service reads (a trailing {@code *} is a prefix). */
    List<String> keys() {
      List<String> keys = new ArrayList<>();
      switch (this) {
        case TRIGGER -> {
          keys.addAll(CommonSettings.KEYS);
          keys.addAll(TriggerSettings.KEYS);
          keys.addAll(ApiSettings.KEYS);
          keys.addAll(AlertSettings.KEYS);
        }
        case WORKER -> keys.addAll(WorkerSettings.KEYS);
        case RETRY -> {
          keys.addAll(CommonSettings.KEYS);
          keys.addAll(RetrySettings.KEYS);
          keys.addAll(AlertSettings.KEYS);
        }
      }
      keys.add(TaskLabel.KEY);
      keys.addAll(Tracing.KEYS);
      return keys;
    }
  }

  @Test
  void each_dockerfile_copies_a_shaded_jar_whose_main_class_exists() throws Exception {
    for (Service s : Service.values()) {
      String docker = read(DEPLOY.resolve(s.dir).resolve("Dockerfile"));
      Matcher m = COPY_JAR.matcher(docker);
      assertThat(m.find())
          .as("%s Dockerfile copies <module>/target/<module>-*-all.jar", s)
          .isTrue();
      String module = m.group(1);
      assertThat(m.group(2)).as("jar name matches its module directory").isEqualTo(module);
      String pom = read(ROOT.resolve(module).resolve("pom.xml"));
      assertThat(pom).as("%s/pom.xml builds the -all jar", module).contains("maven-shade-plugin");
      Matcher main = Pattern.compile("<carillon\\.main>([\\w.]+)</carillon\\.main>").matcher(pom);
      assertThat(main.find()).as("%s/pom.xml sets carillon.main", module).isTrue();
      Method method = Class.forName(main.group(1)).getMethod("main", String[].class);
      assertThat(
              Modifier.isPublic(method.getModifiers()) && Modifier.isStatic(method.getModifiers()))
          .as("%s.main is public static", main.group(1))
          .isTrue();
      assertThat(method.getReturnType()).isEqualTo(void.class);
    }
  }

  @Test
  void dockerfile_variables_are_read_by_their_service_and_health_checks_use_the_admin_port()
      throws IOException {
    for (Service s : Service.values()) {
      String docker = read(DEPLOY.resolve(s.dir).resolve("Dockerfile"));
      Map<String, String> env = new LinkedHashMap<>();
      Matcher m = DOCKER_ENV.matcher(docker);
      while (m.find()) {
        env.put(m.group(1), m.group(2));
      }
      assertThat(unknown(env.keySet(), s.keys())).as("%s Dockerfile variables", s).isEmpty();
      String adminPort = env.get(Config.envName("admin.port"));
      assertThat(adminPort)
          .as("%s Dockerfile sets CARILLON_ADMIN_PORT to the service default", s)
          .isEqualTo(Integer.toString(s.defaultAdminPort));
      Matcher health = HEALTH_URL.matcher(docker);
      assertThat(health.find()).as("%s Dockerfile has a HEALTHCHECK", s).isTrue();
      assertThat(health.group(1)).as("%s HEALTHCHECK port", s).isEqualTo(adminPort);
      assertThat(health.group(2)).isEqualTo("/health/live");
      Matcher expose = EXPOSE.matcher(docker);
      assertThat(expose.find()).isTrue();
      assertThat(expose.group(1)).as("%s EXPOSE", s).isEqualTo(adminPort);
    }
  }

  @Test
  void compose_variables_are_read_by_each_service_and_secrets_come_from_files() throws IOException {
    Map<String, Object> compose = new Yaml().load(read(DEPLOY.resolve("docker-compose.yml")));
    Map<String, Object> services = map(compose.get("services"));
    Map<String, Service> byName =
        Map.of(
            "trigger", Service.TRIGGER,
            "worker-1", Service.WORKER,
            "worker-2", Service.WORKER,
            "retry", Service.RETRY);
    for (Map.Entry<String, Service> e : byName.entrySet()) {
      Map<String, Object> svc = map(services.get(e.getKey()));
      Map<String, Object> env = map(svc.get("environment"));
      Set<String> carillon = carillonNames(env.keySet());
      assertThat(carillon).as("compose %s sets CARILLON_* variables", e.getKey()).isNotEmpty();
      // The shared anchor also hands zk.connect to workers, which do not use ZooKeeper; it is still
      // a key the system reads, so the shared block is held to the union and each service's own
      // additions to its keys.
      assertThat(unknown(carillon, allKeys())).as("compose %s", e.getKey()).isEmpty();
      assertNoInlineSecret(env.keySet(), "compose " + e.getKey());
      Object ports = svc.get("ports");
      if (ports != null) {
        for (Object p : (List<?>) ports) {
          String containerPort = p.toString().substring(p.toString().lastIndexOf(':') + 1);
          assertThat(Integer.parseInt(containerPort))
              .as("compose %s publishes its admin port (and the trigger its API port)", e.getKey())
              .isIn(
                  e.getValue().defaultAdminPort,
                  e.getValue() == Service.TRIGGER ? ApiSettings.DEFAULT_PORT : -1);
        }
      }
    }
    Map<String, Object> worker = map(map(services.get("worker-1")).get("environment"));
    assertThat(unknown(carillonNames(worker.keySet()), allKeys())).isEmpty();
    assertThat(map(map(services.get("retry")).get("environment")))
        .containsKey(Config.envName("db.password") + "_FILE");
    // The API refuses to start without a tokens file: compose mounts one as a secret.
    Map<String, Object> trigger = map(services.get("trigger"));
    String tokens =
        map(trigger.get("environment")).get(Config.envName("api.tokens-file")).toString();
    assertThat(tokens).startsWith("/run/secrets/");
    assertThat(trigger.get("secrets").toString())
        .contains(tokens.substring("/run/secrets/".length()));
  }

  @Test
  void kubernetes_variables_probes_and_ports_match_the_code() throws IOException {
    for (Service s : Service.values()) {
      Map<String, Object> deployment = null;
      for (Object doc : new Yaml().loadAll(read(DEPLOY.resolve("k8s").resolve(s.dir + ".yaml")))) {
        if (doc != null && "Deployment".equals(map(doc).get("kind"))) {
          deployment = map(doc);
        }
      }
      assertThat(deployment).as("k8s/%s.yaml has a Deployment", s.dir).isNotNull();
      Map<String, Object> template = map(map(deployment.get("spec")).get("template"));
      Map<String, Object> container =
          map(((List<?>) map(template.get("spec")).get("containers")).get(0));
      Map<String, String> env = new LinkedHashMap<>();
      for (Object o : (List<?>) container.get("env")) {
        Map<String, Object> var = map(o);
        env.put(var.get("name").toString(), String.valueOf(var.get("value")));
      }
      assertThat(unknown(env.keySet(), s.keys())).as("k8s %s env", s).isEmpty();
      assertNoInlineSecret(env.keySet(), "k8s " + s);
      String adminPort = env.get(Config.envName("admin.port"));
      assertThat(adminPort).isEqualTo(Integer.toString(s.defaultAdminPort));

      Map<String, Object> port = map(((List<?>) container.get("ports")).get(0));
      assertThat(port.get("name")).isEqualTo("admin");
      assertThat(port.get("containerPort").toString())
          .as("k8s %s containerPort", s)
          .isEqualTo(adminPort);
      Map<String, Object> live = map(map(container.get("livenessProbe")).get("httpGet"));
      Map<String, Object> ready = map(map(container.get("readinessProbe")).get("httpGet"));
      assertThat(live).containsEntry("path", "/health/live").containsEntry("port", "admin");
      assertThat(ready).containsEntry("path", "/health/ready").containsEntry("port", "admin");
      Map<String, Object> annotations = map(map(template.get("metadata")).get("annotations"));
      assertThat(annotations.get("prometheus.io/port")).isEqualTo(adminPort);

      // The password file the service is told to read is where the Secret is mounted.
      String passwordFile = env.get(Config.envName("db.password") + "_FILE");
      assertThat(passwordFile).as("k8s %s reads the password from a file", s).isNotNull();
      boolean mounted = false;
      for (Object o : (List<?>) container.get("volumeMounts")) {
        Map<String, Object> mount = map(o);
        mounted |= passwordFile.equals(mount.get("mountPath") + "/password");
      }
      assertThat(mounted).as("k8s %s mounts the secret at %s", s, passwordFile).isTrue();
      if (s == Service.TRIGGER) {
        String tokens = env.get(Config.envName("api.tokens-file"));
        boolean tokensMounted = false;
        for (Object o : (List<?>) container.get("volumeMounts")) {
          tokensMounted |= tokens.equals(map(o).get("mountPath") + "/tokens");
        }
        assertThat(tokensMounted).as("k8s trigger mounts the API tokens at %s", tokens).isTrue();
        assertThat(env.get(Config.envName("api.port")))
            .isEqualTo(Integer.toString(ApiSettings.DEFAULT_PORT));
      }
    }
  }

  @Test
  void the_config_map_holds_only_known_keys_and_no_secret() throws IOException {
    Map<String, Object> configMap =
        map(new Yaml().load(read(DEPLOY.resolve("k8s/configmap.yaml"))));
    assertThat(configMap.get("kind")).isEqualTo("ConfigMap");
    Map<String, Object> data = map(configMap.get("data"));
    assertThat(unknown(data.keySet(), allKeys())).as("ConfigMap keys").isEmpty();
    assertNoInlineSecret(data.keySet(), "ConfigMap");
    for (String name : data.keySet()) {
      assertThat(name).as("no _FILE pointer in the ConfigMap either").doesNotEndWith("_FILE");
    }

    // The secret's value must not have leaked into any non-secret file.
    Map<String, Object> secret = map(new Yaml().load(read(DEPLOY.resolve("k8s/secret.yaml"))));
    assertThat(secret.get("kind")).isEqualTo("Secret");
    Set<String> secretValues = new TreeSet<>();
    map(secret.get("stringData")).values().forEach(v -> secretValues.add(v.toString()));
    secretValues.add(read(DEPLOY.resolve("secrets/db_password.txt")).trim());
    for (Path p : nonSecretFiles()) {
      String text = read(p);
      for (String v : secretValues) {
        assertThat(text).as("%s contains a secret value", ROOT.relativize(p)).doesNotContain(v);
      }
    }
  }

  @Test
  void the_checks_themselves_catch_a_misspelt_key_and_an_inline_secret() {
    // Guards the helpers above: a variable no service reads, and one that does.
    assertThat(unknown(Set.of("CARILLON_RETRY_RATE_PER_SEC"), allKeys()))
        .containsExactly("CARILLON_RETRY_RATE_PER_SEC");
    assertThat(unknown(Set.of("CARILLON_RETRY_RATE_PER_SECOND"), allKeys())).isEmpty();
    assertThat(unknown(Set.of("CARILLON_DB_PASSWORD_FILE"), allKeys())).isEmpty();
    assertThat(unknown(Set.of("CARILLON_KAFKA_PROPERTIES_SECURITY_PROTOCOL"), allKeys())).isEmpty();
    assertThat(unknown(Set.of("CARILLON_ZK_CONNECT"), Service.WORKER.keys()))
        .containsExactly("CARILLON_ZK_CONNECT");
    assertThat(secretVariables(Set.of("CARILLON_DB_PASSWORD", "CARILLON_DB_URL")))
        .containsExactly("CARILLON_DB_PASSWORD");
  }

  /** The variables in {@code names} that map to none of {@code keys} (plain or {@code _FILE}). */
  private static Set<String> unknown(Set<String> names, List<String> keys) {
    Set<String> out = new TreeSet<>();
    for (String name : carillonNames(names)) {
      String plain = name.endsWith("_FILE") ? name.substring(0, name.length() - 5) : name;
      boolean known =
          keys.stream()
              .anyMatch(
                  k ->
                      k.endsWith("*")
                          ? plain.startsWith(Config.envName(k.substring(0, k.length() - 1)))
                          : plain.equals(Config.envName(k)) || name.equals(Config.envName(k)));
      if (!known) {
        out.add(name);
      }
    }
    return out;
  }

  /** Variables that carry a secret inline (a secret key must come through {@code <VAR>_FILE}). */
  private static Set<String> secretVariables(Set<String> names) {
    Set<String> out = new TreeSet<>();
    for (String key : allKeys()) {
      if (Config.isSecret(key) && names.contains(Config.envName(key))) {
        out.add(Config.envName(key));
      }
    }
    return out;
  }

  private static void assertNoInlineSecret(Set<String> names, String where) {
    assertThat(secretVariables(names)).as("%s sets a secret inline", where).isEmpty();
  }

  private static List<String> allKeys() {
    Set<String> all = new LinkedHashSet<>();
    for (Service s : Service.values()) {
      all.addAll(s.keys());
    }
    return List.copyOf(all);
  }

  private static Set<String> carillonNames(Set<String> names) {
    Set<String> out = new TreeSet<>();
    for (String n : names) {
      if (n.startsWith("CARILLON_")) {
        out.add(n);
      }
    }
    return out;
  }

  private static List<Path> nonSecretFiles() throws IOException {
    try (Stream<Path> files = Files.walk(DEPLOY)) {
      return files
          .filter(Files::isRegularFile)
          .filter(p -> !p.startsWith(DEPLOY.resolve("secrets")))
          .filter(p -> !p.equals(DEPLOY.resolve("k8s/secret.yaml")))
          .toList();
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o) {
    assertThat(o).as("expected a YAML mapping").isInstanceOf(Map.class);
    return (Map<String, Object>) o;
  }

  private static String read(Path p) throws IOException {
    return Files.readString(p, StandardCharsets.UTF_8);
  }

  // Surefire runs in the module directory; walk up to the directory that holds deploy/.
  private static Path repositoryRoot() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.isDirectory(p.resolve("deploy"))) {
      p = p.getParent();
    }
    if (p == null) {
      throw new IllegalStateException("no deploy/ directory above " + Path.of("").toAbsolutePath());
    }
    return p;
  }
}
