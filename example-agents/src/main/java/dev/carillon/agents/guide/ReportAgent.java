package dev.carillon.agents.guide;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.carillon.api.AgentContext;
import dev.carillon.api.AgentResult;
import dev.carillon.api.AgentTask;
import dev.carillon.api.NonRetryableException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Handler {@code report}: writes one report per business window into an outbox directory and
 * returns a summary and the report's URI. It is the complete example of {@code
 * docs/plugin-guide.md}, kept here so that the guide's code is compiled and tested.
 *
 * <p>Params: {@code {"title": "Orders", "sections": ["orders", "refunds"], "outbox":
 * "/var/reports", "sectionBudgetSeconds": 30}}; {@code sections} is required.
 */
public final class ReportAgent implements AgentTask {
  /** The handler name task definitions use. */
  public static final String TYPE = "report";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int DEFAULT_SECTION_BUDGET_SECONDS = 30;

  private final Clock clock;

  /** The constructor {@link java.util.ServiceLoader} uses: the system clock. */
  public ReportAgent() {
    this(Clock.systemUTC());
  }

  /** For tests: "now" comes from {@code clock}, so deadline handling can be tested exactly. */
  public ReportAgent(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public AgentResult run(AgentContext context) throws IOException {
    // 1. Parameters. Bad ones will not get better on a retry: NonRetryableException (DEAD at once).
    JsonNode params = params(context.paramsJson());
    List<String> sections = sections(params);
    String title = params.path("title").asText(context.taskId());
    Path outbox =
        Path.of(
            params
                .path("outbox")
                .asText(Path.of(System.getProperty("java.io.tmpdir"), "reports").toString()));
    Duration budget =
        Duration.ofSeconds(
            params.path("sectionBudgetSeconds").asInt(DEFAULT_SECTION_BUDGET_SECONDS));

    // 2. The side effect is keyed by the idempotency key, which every attempt of this instance
    //    shares. If an earlier attempt published and then died before SUCCESS was recorded, the
    //    retry finds the report and does not publish a second one.
    Path report =
        outbox.resolve(context.idempotencyKey().replaceAll("[^A-Za-z0-9._-]", "_") + ".md");
    if (Files.exists(report)) {
      return AgentResult.of(
          "already published by an earlier attempt: " + report.getFileName(), report.toUri());
    }

    // 3. The work, one step at a time, checking cancellation and the deadline between steps.
    StringBuilder text = new StringBuilder();
    text.append("# ").append(title).append(" (").append(context.windowKey()).append(")\n");
    for (int i = 0; i < sections.size(); i++) {
      context.checkCancelled(); // throws RunCancelledException: let it propagate
      Instant now = clock.instant();
      if (now.plus(budget).isAfter(context.deadline())) {
        // An ordinary exception: the task's retry policy decides; a new attempt gets a new
        // deadline.
        throw new IllegalStateException(
            "only "
                + Duration.between(now, context.deadline()).toSeconds()
                + "s left before the deadline; section '"
                + sections.get(i)
                + "' needs "
                + budget.toSeconds()
                + "s");
      }
      context.heartbeat("section " + (i + 1) + " of " + sections.size() + ": " + sections.get(i));
      text.append("\n## ").append(sections.get(i)).append('\n');
      text.append("Covers ")
          .append(context.windowStart())
          .append(" to ")
          .append(context.windowEnd())
          .append(" (attempt ")
          .append(context.attempt())
          .append(").\n");
    }

    // 4. Publish atomically: readers never see half a report, and a crash leaves no report at all.
    Files.createDirectories(outbox);
    Path tmp = Files.createTempFile(outbox, ".report-", ".tmp");
    try {
      Files.writeString(tmp, text, StandardCharsets.UTF_8);
      Files.move(tmp, report, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(tmp);
    }

    // 5. A short summary for operators; the full output stays behind the URI.
    return AgentResult.of(
        sections.size() + " sections for " + context.windowKey() + " published", report.toUri());
  }

  private static JsonNode params(String json) {
    try {
      JsonNode root = JSON.readTree(json);
      if (root == null || !root.isObject()) {
        throw new NonRetryableException("report: params must be a JSON object, got " + json);
      }
      return root;
    } catch (JsonProcessingException e) {
      throw new NonRetryableException("report: params are not JSON: " + e.getOriginalMessage(), e);
    }
  }

  private static List<String> sections(JsonNode params) {
    JsonNode node = params.get("sections");
    if (node == null || !node.isArray() || node.isEmpty()) {
      throw new NonRetryableException(
          "report: param \"sections\" must be a non-empty array of strings");
    }
    List<String> out = new ArrayList<>();
    for (JsonNode s : node) {
      if (!s.isTextual() || s.textValue().isBlank()) {
        throw new NonRetryableException(
            "report: every entry of \"sections\" must be a non-blank string, found " + s);
      }
      out.add(s.textValue().strip());
    }
    return out;
  }
}
