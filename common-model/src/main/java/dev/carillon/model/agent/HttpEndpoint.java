package dev.carillon.model.agent;

import dev.carillon.model.task.Problem;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What an {@code http} task calls: an endpoint the run's context is POSTed to.
 *
 * @param url an absolute {@code http} or {@code https} URL without user information
 * @param requestTimeout how long to wait for the response, or empty for the rest of the run's
 *     timeout; the run's deadline bounds it either way
 * @param tokenEnv the name of a worker environment variable holding a bearer token sent as {@code
 *     Authorization}, or empty for none; the token never appears in the task or the logs
 * @throws IllegalArgumentException naming the field and the value when a rule of {@link #problems}
 *     is broken
 */
public record HttpEndpoint(URI url, Optional<Duration> requestTimeout, Optional<String> tokenEnv) {

  /** The shortest request timeout a task may set. */
  public static final Duration MIN_REQUEST_TIMEOUT = Duration.ofMillis(100);

  public HttpEndpoint {
    List<Problem> problems = problems(url, requestTimeout, tokenEnv);
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          String.join("; ", problems.stream().map(Problem::toString).toList()));
    }
  }

  /**
   * What is wrong with these values, each problem named by its path under {@code params.http};
   * empty when they make an endpoint.
   */
  public static List<Problem> problems(
      URI url, Optional<Duration> requestTimeout, Optional<String> tokenEnv) {
    List<Problem> problems = new ArrayList<>();
    String scheme = url == null ? null : url.getScheme();
    if (url == null
        || scheme == null
        || !(scheme.toLowerCase(Locale.ROOT).equals("http")
            || scheme.toLowerCase(Locale.ROOT).equals("https"))
        || url.getHost() == null) {
      problems.add(
          new Problem(
              "params.http.url",
              url,
              "must be an absolute http or https URL, e.g. https://agents.internal/summarize"));
    } else if (url.getUserInfo() != null) {
      problems.add(
          new Problem(
              "params.http.url",
              "<with user information>",
              "must not carry credentials; name a variable holding a token in params.http.tokenEnv"));
    }
    requestTimeout.ifPresent(
        t -> {
          if (t.compareTo(MIN_REQUEST_TIMEOUT) < 0) {
            problems.add(new Problem("params.http.requestTimeout", t, "must be at least 100ms"));
          }
        });
    tokenEnv.ifPresent(
        name -> {
          if (!ExecCommand.ENV_NAME.matcher(name).matches()) {
            problems.add(
                new Problem(
                    "params.http.tokenEnv",
                    name,
                    "must be a variable name matching " + ExecCommand.ENV_NAME.pattern()));
          }
        });
    return problems;
  }
}
