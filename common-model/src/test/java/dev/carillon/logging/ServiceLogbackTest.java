package dev.carillon.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.OutputStreamAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The logging configuration every service jar ships, run as the services run it. */
class ServiceLogbackTest {
  private static List<String> logWith(
      String format, java.util.function.Consumer<LoggerContext> body) throws Exception {
    LoggerContext context = new LoggerContext();
    // The MDC that org.slf4j.MDC (and so InstanceMdc) writes to.
    context.setMDCAdapter(((LoggerContext) LoggerFactory.getILoggerFactory()).getMDCAdapter());
    if (format != null) {
      context.putProperty(LogFormat.ENV, format);
    }
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      configurator.doConfigure(
          ServiceLogbackTest.class.getResource("/service-logback-under-test.xml"));
      // The console appender the format chose, writing here instead of to the console.
      int appenders = 0;
      for (var it = context.getLogger(Logger.ROOT_LOGGER_NAME).iteratorForAppenders();
          it.hasNext(); ) {
        ((OutputStreamAppender<?>) it.next()).setOutputStream(out);
        appenders++;
      }
      assertThat(appenders).as("appenders on the root logger").isEqualTo(1);
      body.accept(context);
    } finally {
      context.stop();
    }
    return Arrays.stream(out.toString(StandardCharsets.UTF_8).split("\n"))
        .filter(l -> !l.isBlank())
        .toList();
  }

  @Test
  void info_by_default_libraries_at_warn_and_an_instance_line_names_its_instance()
      throws Exception {
    List<String> lines =
        logWith(
            null,
            c -> {
              Logger ours = c.getLogger("dev.carillon.worker.run.Runner");
              ours.debug("debug line");
              try (InstanceMdc mdc = InstanceMdc.instance("daily", "2026-11-29", 42, 3)) {
                ours.info("info line");
              }
              c.getLogger("org.apache.kafka.clients.producer.KafkaProducer").info("kafka info");
              c.getLogger("org.apache.curator.framework.imps.CuratorFrameworkImpl").info("c");
              c.getLogger("org.apache.zookeeper.ZooKeeper").info("zk info");
              c.getLogger("com.zaxxer.hikari.HikariDataSource").info("hikari info");
              c.getLogger("org.flywaydb.core.FlywayExecutor").info("flyway info");
              c.getLogger("org.jooq.Constants").info("jooq logo");
              c.getLogger("org.eclipse.jetty.server.Server").info("jetty info");
              c.getLogger("org.apache.kafka.clients.NetworkClient").warn("kafka warn");
            });
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0))
        .contains(" INFO ")
        .contains("task=daily")
        .contains("window=2026-11-29")
        .contains("instance=42")
        .contains("attempt=3")
        .endsWith("- info line");
    assertThat(lines.get(1)).contains(" WARN ").endsWith("- kafka warn");
  }

  @Test
  void json_lines_carry_the_message_and_the_mdc_fields() throws Exception {
    List<String> lines =
        logWith(
            "json",
            c -> {
              try (InstanceMdc mdc = InstanceMdc.instance("daily", "2026-11-29", 42, 3)) {
                c.getLogger("dev.carillon.x").info("started {}", "run");
              }
            });
    assertThat(lines).hasSize(1);
    JsonNode line = new ObjectMapper().readTree(lines.get(0));
    assertThat(line.get("level").asText()).isEqualTo("INFO");
    assertThat(line.get("formattedMessage").asText()).isEqualTo("started run");
    assertThat(line.get("mdc").get("task").asText()).isEqualTo("daily");
    assertThat(line.get("mdc").get("instance").asText()).isEqualTo("42");
    assertThat(line.get("mdc").get("attempt").asText()).isEqualTo("3");
  }
}
