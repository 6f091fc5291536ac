package dev.carillon.api;

import java.net.URI;
import java.util.Objects;
import java.util.Optional;

/**
 * What a successful run produced: a short summary stored with the instance, and optionally a link
 * to the full output kept elsewhere (an object store, a document, a message). Keep large outputs
 * out of the summary; store them and return their URI.
 *
 * @param summary a short text for operators and downstream tasks; the worker keeps at most a
 *     configurable number of UTF-8 bytes (default {@value #DEFAULT_MAX_SUMMARY_BYTES}) and cuts
 *     longer text at a character boundary; never {@code null}, may be empty
 * @param artifactUri an absolute URI of the full output, or {@code null} when there is none
 */
@Stability.Stable
public record AgentResult(String summary, URI artifactUri) {

  /** The summary size, in bytes of UTF-8, that workers keep unless configured otherwise. */
  public static final int DEFAULT_MAX_SUMMARY_BYTES = 4096;

  /**
   * Checks the values.
   *
   * @param summary the summary; never {@code null}, may be empty
   * @param artifactUri an absolute URI, or {@code null}
   * @throws NullPointerException if {@code summary} is {@code null}
   * @throws IllegalArgumentException if {@code artifactUri} is not absolute (has no scheme)
   */
  public AgentResult {
    Objects.requireNonNull(summary, "summary must not be null (use \"\" for none)");
    if (artifactUri != null && !artifactUri.isAbsolute()) {
      throw new IllegalArgumentException(
          "artifactUri must be absolute (with a scheme such as s3: or https:): " + artifactUri);
    }
  }

  /**
   * A result with a summary and no artifact.
   *
   * @param summary the summary; never {@code null}
   * @return the result
   */
  public static AgentResult of(String summary) {
    return new AgentResult(summary, null);
  }

  /**
   * A result with a summary and a link to the full output.
   *
   * @param summary the summary; never {@code null}
   * @param artifactUri an absolute URI; never {@code null}
   * @return the result
   */
  public static AgentResult of(String summary, URI artifactUri) {
    return new AgentResult(summary, Objects.requireNonNull(artifactUri, "artifactUri"));
  }

  /**
   * The artifact link, if any.
   *
   * @return {@link #artifactUri()} as an optional
   */
  public Optional<URI> artifact() {
    return Optional.ofNullable(artifactUri);
  }
}
