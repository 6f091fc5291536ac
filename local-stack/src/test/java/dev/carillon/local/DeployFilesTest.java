package dev.carillon.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.alert.AlertSettings;
import dev.carillon.config.CommonSettings;
import dev.carillon.config.Config;
import dev.carillon.config.Setup;
import dev.carillon.control.ApiSettings;
import dev.carillon.metrics.TaskLabel;
import dev.carillon.retry.RetrySettings;
import dev.carillon.store.DbRole;
import dev.carillon.store.Schema;
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
    Map<String, Object> services = map(compose().get("services"));
    Map<String, List<String>> byName =
        Map.of(
            "trigger", Service.TRIGGER.keys(),
            "worker-1", Service.WORKER.keys(),
            "worker-2", Service.WORKER.keys(),
            "retry", Service.RETRY.keys(),
            "migrate", Setup.MIGRATE_KEYS,
            "topics", Setup.TOPIC_KEYS);
    for (Map.Entry<String, List<String>> e : byName.entrySet()) {
      Map<String, Object> svc = map(services.get(e.getKey()));
      Map<String, Object> env = map(svc.get("environment"));
      Set<String> carillon = carillonNames(env.keySet());
      assertThat(carillon).as("compose %s sets CARILLON_* variables", e.getKey()).isNotEmpty();
      // Each service's block, anchors merged, holds only keys that service reads.
      assertThat(unknown(carillon, e.getValue())).as("compose %s", e.getKey()).isEmpty();
      assertNoInlineSecret(env.keySet(), "compose " + e.getKey());
    }
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
  void compose_publishes_only_admin_and_api_ports_and_only_on_localhost() throws IOException {
    Map<String, Object> services = map(compose().get("services"));
    Map<String, List<Integer>> published =
        Map.of(
            "trigger", List.of(Service.TRIGGER.defaultAdminPort, ApiSettings.DEFAULT_PORT),
            "retry", List.of(Service.RETRY.defaultAdminPort),
            // Prometheus's own UI (the alert rules and the scrape of the admin ports).
            "prometheus", List.of(9090));
    for (Map.Entry<String, Object> e : services.entrySet()) {
      Object ports = map(e.getValue()).get("ports");
      if (ports == null) {
        continue;
      }
      assertThat(published).as("compose %s publishes ports", e.getKey()).containsKey(e.getKey());
      for (Object p : (List<?>) ports) {
        String port = p.toString();
        assertThat(port)
            .as("compose %s binds its port to 127.0.0.1", e.getKey())
            .startsWith("127.0.0.1:");
        assertThat(Integer.parseInt(port.substring(port.lastIndexOf(':') + 1)))
            .isIn(published.get(e.getKey()));
      }
    }
  }

  @Test
  void compose_runs_the_deploy_steps_first_and_creates_topics_with_the_services_partitions()
      throws IOException {
    Map<String, Object> services = map(compose().get("services"));
    assertThat(map(services.get("migrate")).get("command")).isEqualTo(List.of("migrate"));
    assertThat(map(services.get("topics")).get("command")).isEqualTo(List.of("create-topics"));
    String partitionsVar = Config.envName("kafka.instances-partitions");
    Object partitions = map(map(services.get("topics")).get("environment")).get(partitionsVar);
    assertThat(partitions).as("the topics one-shot sets %s", partitionsVar).isNotNull();
    for (String name : List.of("trigger", "worker-1", "worker-2", "retry")) {
      Map<String, Object> svc = map(services.get(name));
      assertThat(map(svc.get("environment")).get(partitionsVar))
          .as("compose %s checks the partitions the topics one-shot makes", name)
          .isEqualTo(partitions);
      Map<String, Object> after = map(svc.get("depends_on"));
      for (String step : List.of("migrate", "topics")) {
        assertThat(map(after.get(step)))
            .as("compose %s waits for %s", name, step)
            .containsEntry("condition", "service_completed_successfully");
      }
      assertThat(svc).containsEntry("read_only", true).containsEntry("cap_drop", List.of("ALL"));
      assertThat(map(svc.get("environment")).get(Config.envName("db.user")))
          .as("compose %s logs in as its own role", name)
          .isEqualTo(roleOf(name.startsWith("worker") ? "worker" : name));
    }
    Map<String, Object> kafka = map(map(services.get("kafka")).get("environment"));
    assertThat(kafka).containsEntry("KAFKA_AUTO_CREATE_TOPICS_ENABLE", "false");
    // Only the migrate one-shot holds role passwords; the secrets one-shot makes them.
    for (Map.Entry<String, Object> e : services.entrySet()) {
      Object env = map(e.getValue()).get("environment");
      boolean rolePasswords =
          env != null && map(env).keySet().stream().anyMatch(k -> k.startsWith("CARILLON_ROLES_"));
      assertThat(rolePasswords)
          .as("compose %s sets role passwords", e.getKey())
          .isEqualTo(e.getKey().equals("migrate"));
    }
    assertThat(read(DEPLOY.resolve("compose/generate-secrets.sh")))
        .contains("/dev/urandom")
        .contains("chmod 0400");
  }

  @Test
  void kubernetes_variables_probes_and_ports_match_the_code() throws IOException {
    for (Service s : Service.values()) {
      Map<String, Object> deployment = k8s(s.dir + ".yaml", "Deployment").get(0);
      Map<String, Object> template = map(map(deployment.get("spec")).get("template"));
      Map<String, Object> container = container(template);
      Map<String, String> env = env(container);
      assertThat(unknown(env.keySet(), s.keys())).as("k8s %s env", s).isEmpty();
      assertNoInlineSecret(env.keySet(), "k8s " + s);
      String adminPort = env.get(Config.envName("admin.port"));
      assertThat(adminPort).isEqualTo(Integer.toString(s.defaultAdminPort));

      Map<String, Object> port = map(((List<?>) container.get("ports")).get(0));
      assertThat(port.get("name")).isEqualTo("admin");
      assertThat(port.get("containerPort").toString())
          .as("k8s %s containerPort", s)
          .isEqualTo(adminPort);
      Map<String, Object> start = map(map(container.get("startupProbe")).get("httpGet"));
      Map<String, Object> live = map(map(container.get("livenessProbe")).get("httpGet"));
      Map<String, Object> ready = map(map(container.get("readinessProbe")).get("httpGet"));
      assertThat(start).containsEntry("path", "/health/live").containsEntry("port", "admin");
      assertThat(live).containsEntry("path", "/health/live").containsEntry("port", "admin");
      assertThat(ready).containsEntry("path", "/health/ready").containsEntry("port", "admin");
      Map<String, Object> annotations = map(map(template.get("metadata")).get("annotations"));
      assertThat(annotations.get("prometheus.io/port")).isEqualTo(adminPort);

      // Its own role, and the password files it is told to read are where its Secrets are mounted.
      assertThat(env.get(Config.envName("db.user")))
          .as("k8s %s logs in as its own role", s)
          .isEqualTo(roleOf(s.dir));
      for (Map.Entry<String, String> v : env.entrySet()) {
        if (v.getKey().endsWith("_FILE")) {
          assertThat(mountedSecret(template, v.getValue()))
              .as("k8s %s mounts a Secret at %s", s, v.getValue())
              .isNotNull();
        }
      }
      assertThat(mountedSecret(template, env.get(Config.envName("db.password") + "_FILE")))
          .isEqualTo("carillon-db-" + s.dir);
      assertThat(env).containsKey("CARILLON_KAFKA_PROPERTIES_SASL_JAAS_CONFIG_FILE");
      if (s == Service.TRIGGER) {
        // The API it serves logs in with the api role and the operator's Kafka user.
        assertThat(env.get(Config.envName("api.db-user"))).isEqualTo(roleOf("api"));
        assertThat(mountedSecret(template, env.get(Config.envName("api.db-password") + "_FILE")))
            .isEqualTo("carillon-db-api");
        assertThat(
                mountedSecret(
                    template, env.get("CARILLON_API_KAFKA_PROPERTIES_SASL_JAAS_CONFIG_FILE")))
            .isEqualTo("carillon-kafka-operator");
        assertThat(env.get(Config.envName("api.port")))
            .isEqualTo(Integer.toString(ApiSettings.DEFAULT_PORT));
        assertThat(mountedSecret(template, env.get(Config.envName("api.tokens-file"))))
            .as("the API's tokens come from a Secret")
            .isEqualTo("carillon-api");
      }
      assertThat(
              mountedSecret(template, env.get("CARILLON_KAFKA_PROPERTIES_SASL_JAAS_CONFIG_FILE")))
          .isEqualTo("carillon-kafka-" + s.dir);
    }
  }

  @Test
  void kubernetes_pods_run_as_non_root_without_capabilities_on_a_read_only_root_with_limits()
      throws IOException {
    List<Map<String, Object>> workloads = new ArrayList<>();
    for (Service s : Service.values()) {
      workloads.addAll(k8s(s.dir + ".yaml", "Deployment"));
    }
    workloads.addAll(k8s("jobs.yaml", "Job"));
    assertThat(workloads).hasSize(5);
    for (Map<String, Object> w : workloads) {
      String name = map(w.get("metadata")).get("name").toString();
      Map<String, Object> pod = map(map(map(w.get("spec")).get("template")).get("spec"));
      assertThat(pod).as("%s", name).containsEntry("automountServiceAccountToken", false);
      Map<String, Object> podSecurity = map(pod.get("securityContext"));
      assertThat(podSecurity)
          .as("%s pod securityContext", name)
          .containsEntry("runAsNonRoot", true);
      assertThat(map(podSecurity.get("seccompProfile"))).containsEntry("type", "RuntimeDefault");
      for (Object c : (List<?>) pod.get("containers")) {
        Map<String, Object> container = map(c);
        Map<String, Object> security = map(container.get("securityContext"));
        assertThat(security)
            .as("%s container securityContext", name)
            .containsEntry("allowPrivilegeEscalation", false)
            .containsEntry("readOnlyRootFilesystem", true);
        assertThat(map(security.get("capabilities"))).containsEntry("drop", List.of("ALL"));
        Map<String, Object> resources = map(container.get("resources"));
        assertThat(map(resources.get("requests")))
            .as("%s requests", name)
            .containsKeys("cpu", "memory");
        assertThat(map(resources.get("limits")))
            .as("%s limits", name)
            .containsKeys("cpu", "memory");
        // The JVM writes its temporary files somewhere: an emptyDir, not the image.
        String tmpVolume = null;
        for (Object m : (List<?>) container.get("volumeMounts")) {
          if ("/tmp".equals(map(m).get("mountPath"))) {
            tmpVolume = map(m).get("name").toString();
          }
        }
        assertThat(tmpVolume).as("%s mounts /tmp", name).isNotNull();
        assertThat(volume(pod, tmpVolume)).as("%s /tmp volume", name).containsKey("emptyDir");
      }
    }
  }

  @Test
  void kubernetes_keeps_the_trigger_standby_and_workers_apart_and_budgets_disruptions()
      throws IOException {
    for (Service s : Service.values()) {
      Map<String, Object> deployment = k8s(s.dir + ".yaml", "Deployment").get(0);
      Map<String, Object> labels =
          map(map(map(deployment.get("spec")).get("selector")).get("matchLabels"));
      Map<String, Object> pod = map(map(map(deployment.get("spec")).get("template")).get("spec"));
      Map<String, Object> antiAffinity = map(map(pod.get("affinity")).get("podAntiAffinity"));
      // A standby on the leader's node would go down with it: required for the elected services,
      // preferred for workers (spread, but never unschedulable).
      String kind =
          s == Service.WORKER
              ? "preferredDuringSchedulingIgnoredDuringExecution"
              : "requiredDuringSchedulingIgnoredDuringExecution";
      assertThat(antiAffinity).as("%s pod anti-affinity", s).containsKey(kind);
      Map<String, Object> first = map(((List<?>) antiAffinity.get(kind)).get(0));
      Map<String, Object> term = s == Service.WORKER ? map(first.get("podAffinityTerm")) : first;
      assertThat(term)
          .as("%s anti-affinity", s)
          .containsEntry("topologyKey", "kubernetes.io/hostname");
      assertThat(map(map(term.get("labelSelector")).get("matchLabels"))).isEqualTo(labels);

      Map<String, Object> pdb = map(k8s(s.dir + ".yaml", "PodDisruptionBudget").get(0).get("spec"));
      assertThat(map(map(pdb.get("selector")).get("matchLabels")))
          .as("%s PodDisruptionBudget selects its pods", s)
          .isEqualTo(labels);
      if (s == Service.WORKER) {
        assertThat(pdb).containsEntry("maxUnavailable", 1);
      } else {
        assertThat(pdb).containsEntry("minAvailable", 1);
      }
    }
  }

  @Test
  void kubernetes_denies_all_traffic_but_what_a_policy_names() throws IOException {
    List<Map<String, Object>> policies = k8s("networkpolicy.yaml", "NetworkPolicy");
    Map<String, Object> carillon = Map.of("app.kubernetes.io/part-of", "carillon");
    Map<String, Object> deny =
        policies.stream()
            .filter(p -> map(p.get("metadata")).get("name").equals("carillon-default-deny"))
            .findFirst()
            .map(p -> map(p.get("spec")))
            .orElseThrow();
    assertThat(map(map(deny.get("podSelector")).get("matchLabels"))).isEqualTo(carillon);
    assertThat(deny.get("policyTypes")).isEqualTo(List.of("Ingress", "Egress"));
    assertThat(deny).doesNotContainKeys("ingress", "egress");
    Set<Integer> adminPorts = new TreeSet<>();
    for (Map<String, Object> p : policies) {
      Map<String, Object> spec = map(p.get("spec"));
      for (Object rule : (List<?>) spec.getOrDefault("ingress", List.of())) {
        for (Object from : (List<?>) map(rule).get("from")) {
          assertThat(map(from))
              .as("ingress of %s comes from a named namespace", map(p.get("metadata")).get("name"))
              .containsKey("namespaceSelector");
        }
        for (Object port : (List<?>) map(rule).get("ports")) {
          adminPorts.add((Integer) map(port).get("port"));
        }
      }
      for (Object rule : (List<?>) spec.getOrDefault("egress", List.of())) {
        for (Object port : (List<?>) map(rule).get("ports")) {
          if (Integer.valueOf(2181).equals(map(port).get("port"))) {
            assertThat(spec.get("podSelector").toString())
                .as("only trigger and retry reach ZooKeeper")
                .doesNotContain("carillon-worker")
                .contains("carillon-trigger");
          }
        }
      }
    }
    for (Service s : Service.values()) {
      assertThat(adminPorts).contains(s.defaultAdminPort);
    }
  }

  @Test
  void kubernetes_runs_the_deploy_steps_as_jobs_with_the_services_partitions() throws IOException {
    List<Map<String, Object>> jobs = k8s("jobs.yaml", "Job");
    Map<String, List<String>> keys =
        Map.of("migrate", Setup.MIGRATE_KEYS, "create-topics", Setup.TOPIC_KEYS);
    Set<String> steps = new TreeSet<>();
    for (Map<String, Object> job : jobs) {
      Map<String, Object> template = map(map(job.get("spec")).get("template"));
      Map<String, Object> container = container(template);
      String step = ((List<?>) container.get("args")).get(0).toString();
      steps.add(step);
      Map<String, String> env = env(container);
      assertThat(unknown(env.keySet(), keys.get(step))).as("k8s %s env", step).isEmpty();
      assertNoInlineSecret(env.keySet(), "k8s " + step);
      for (Map.Entry<String, String> v : env.entrySet()) {
        if (v.getKey().endsWith("_FILE")) {
          assertThat(mountedSecret(template, v.getValue()))
              .as("k8s %s mounts a Secret at %s", step, v.getValue())
              .isNotNull();
        }
      }
      if (step.equals("create-topics")) {
        // The partitions come from the ConfigMap the services check them against.
        assertThat(container.get("envFrom").toString()).contains("name=carillon");
        assertThat(env).doesNotContainKey(Config.envName("kafka.instances-partitions"));
        assertThat(env).containsKeys("CARILLON_KAFKA_ACL_TRIGGER", "CARILLON_KAFKA_ACL_OPERATOR");
        // The queue topics are the step's too: services create none.
        assertThat(env).containsKey(Config.envName("kafka.queues"));
      } else {
        for (DbRole role : DbRole.values()) {
          assertThat(env).containsKey(Config.envName(Setup.passwordKey(role)) + "_FILE");
        }
      }
    }
    assertThat(steps).containsExactly("create-topics", "migrate");
    Map<String, Object> configMap =
        map(new Yaml().load(read(DEPLOY.resolve("k8s/configmap.yaml"))));
    assertThat(map(configMap.get("data")))
        .containsKey(Config.envName("kafka.instances-partitions"));
    for (Service s : Service.values()) {
      Map<String, Object> container =
          container(
              map(map(k8s(s.dir + ".yaml", "Deployment").get(0).get("spec")).get("template")));
      assertThat(container.get("envFrom").toString()).contains("name=carillon");
      assertThat(env(container)).doesNotContainKey(Config.envName("kafka.instances-partitions"));
    }
  }

  @Test
  void the_config_map_holds_only_known_keys_and_nothing_secret_is_committed() throws IOException {
    Map<String, Object> configMap =
        map(new Yaml().load(read(DEPLOY.resolve("k8s/configmap.yaml"))));
    assertThat(configMap.get("kind")).isEqualTo("ConfigMap");
    Map<String, Object> data = map(configMap.get("data"));
    assertThat(unknown(data.keySet(), allKeys())).as("ConfigMap keys").isEmpty();
    assertNoInlineSecret(data.keySet(), "ConfigMap");
    for (String name : data.keySet()) {
      assertThat(name).as("no _FILE pointer in the ConfigMap either").doesNotEndWith("_FILE");
    }
    // No Secret manifest: applying one would reset the real Secret of that name; operators create
    // them (docs/security.md), and compose generates its own.
    try (Stream<Path> files = Files.walk(DEPLOY)) {
      for (Path p : files.filter(Files::isRegularFile).toList()) {
        String text = read(p);
        assertThat(text).as("%s", ROOT.relativize(p)).doesNotContain("change-me");
        if (p.toString().endsWith(".yaml")) {
          for (Object doc : new Yaml().loadAll(text)) {
            if (doc != null) {
              assertThat(map(doc).get("kind")).as("%s", ROOT.relativize(p)).isNotEqualTo("Secret");
            }
          }
        }
      }
    }
    // The one file there is the API's token list, which holds hashes, never tokens.
    try (Stream<Path> files = Files.list(DEPLOY.resolve("secrets"))) {
      assertThat(files.map(p -> p.getFileName().toString()).toList())
          .containsExactly("api_tokens.txt");
    }
    for (String line : read(DEPLOY.resolve("secrets/api_tokens.txt")).split("\\R")) {
      if (!line.isBlank() && !line.startsWith("#")) {
        assertThat(line).matches("\\S+ (viewer|operator|admin) sha256:[0-9a-f]{64}");
      }
    }
  }

  @Test
  void the_security_guide_pins_every_carillon_image_by_digest() throws IOException {
    String guide = read(ROOT.resolve("docs/security.md"));
    Matcher m = Pattern.compile("image: (\\S+)").matcher(guide);
    List<String> images = new ArrayList<>();
    while (m.find()) {
      images.add(m.group(1));
    }
    assertThat(images).as("images in docs/security.md").isNotEmpty();
    for (String image : images) {
      assertThat(image).as("image %s", image).matches(".+@sha256:[0-9a-f]{64}");
    }
    for (Service s : Service.values()) {
      assertThat(images).anyMatch(i -> i.contains("/carillon-" + s.dir + "@"));
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

  private static Map<String, Object> compose() throws IOException {
    return new Yaml().load(read(DEPLOY.resolve("docker-compose.yml")));
  }

  /** The documents of {@code k8s/<file>} of {@code kind}. */
  private static List<Map<String, Object>> k8s(String file, String kind) throws IOException {
    List<Map<String, Object>> out = new ArrayList<>();
    for (Object doc : new Yaml().loadAll(read(DEPLOY.resolve("k8s").resolve(file)))) {
      if (doc != null && kind.equals(map(doc).get("kind"))) {
        out.add(map(doc));
      }
    }
    assertThat(out).as("k8s/%s has a %s", file, kind).isNotEmpty();
    return out;
  }

  private static Map<String, Object> container(Map<String, Object> template) {
    return map(((List<?>) map(template.get("spec")).get("containers")).get(0));
  }

  /** A container's plain {@code env} entries (valueFrom entries map to their text). */
  private static Map<String, String> env(Map<String, Object> container) {
    Map<String, String> env = new LinkedHashMap<>();
    for (Object o : (List<?>) container.get("env")) {
      Map<String, Object> var = map(o);
      env.put(var.get("name").toString(), String.valueOf(var.get("value")));
    }
    return env;
  }

  private static Map<String, Object> volume(Map<String, Object> pod, String name) {
    for (Object v : (List<?>) pod.get("volumes")) {
      if (name.equals(map(v).get("name"))) {
        return map(v);
      }
    }
    throw new AssertionError("no volume " + name);
  }

  /** The Secret mounted at the directory of {@code file}, or null. */
  private static String mountedSecret(Map<String, Object> template, String file) {
    Map<String, Object> pod = map(template.get("spec"));
    for (Object m : (List<?>) container(template).get("volumeMounts")) {
      Map<String, Object> mount = map(m);
      if (file.startsWith(mount.get("mountPath") + "/")) {
        Object secret = volume(pod, mount.get("name").toString()).get("secret");
        return secret == null ? null : map(secret).get("secretName").toString();
      }
    }
    return null;
  }

  /** The database role of a service, e.g. {@code carillon_worker}. */
  private static String roleOf(String service) {
    return DbRole.valueOf(service.toUpperCase(java.util.Locale.ROOT))
        .roleName(Schema.DEFAULT_ROLE_PREFIX);
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
