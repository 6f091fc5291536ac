package dev.carillon.worker.run;

import dev.carillon.api.AgentResult;
import dev.carillon.api.NonRetryableException;
import dev.carillon.store.Outcome;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.IdentityHashMap;
import java.util.Map;

/** Turns what a plugin returned or threw into the {@link Outcome} the store records. Pure. */
public final class Outcomes {
  /** Appended to a cut summary so that readers see it was cut. */
  public static final String TRUNCATION_MARK = "…[truncated]";

  private Outcomes() {}

  /**
   * SUCCESS with the summary cut to {@code maxBytes} UTF-8 bytes (marked and flagged when cut) and
   * the artifact URI.
   */
  public static Outcome success(AgentResult result, int maxBytes) {
    Summary s = truncate(result.summary(), maxBytes);
    URI uri = result.artifactUri();
    return Outcome.success(s.text(), s.truncated(), uri == null ? null : uri.toString());
  }

  /**
   * FAILED with the exception class and message as the reason (clipped to {@value
   * Outcome#MAX_REASON} characters), non-retryable when a {@link NonRetryableException} is anywhere
   * in the cause chain.
   */
  public static Outcome failure(Throwable thrown) {
    NonRetryableException nonRetryable = findNonRetryable(thrown);
    Throwable shown = nonRetryable != null ? nonRetryable : thrown;
    String reason = shown.getClass().getName() + ": " + shown.getMessage();
    if (nonRetryable != null && nonRetryable != thrown) {
      reason = reason + " (wrapped in " + thrown.getClass().getName() + ")";
    }
    return Outcome.failure(reason, nonRetryable != null);
  }

  private static NonRetryableException findNonRetryable(Throwable thrown) {
    // Cause chains can loop; remember what was seen.
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable t = thrown; t != null && seen.put(t, Boolean.TRUE) == null; t = t.getCause()) {
      if (t instanceof NonRetryableException n) {
        return n;
      }
    }
    return null;
  }

  /**
   * A summary as stored.
   *
   * @param text at most the limit in UTF-8 bytes, mark included
   * @param truncated whether the text was cut
   */
  public record Summary(String text, boolean truncated) {}

  /**
   * Cuts {@code text} to at most {@code maxBytes} bytes of UTF-8, never inside a character (a
   * surrogate pair is kept or dropped whole), and appends {@link #TRUNCATION_MARK} within the limit
   * when it cuts.
   */
  public static Summary truncate(String text, int maxBytes) {
    byte[] all = text.getBytes(StandardCharsets.UTF_8);
    if (all.length <= maxBytes) {
      return new Summary(text, false);
    }
    int markBytes = TRUNCATION_MARK.getBytes(StandardCharsets.UTF_8).length;
    int budget = Math.max(0, maxBytes - markBytes);
    // The encoder stops before a character that does not fit whole, so the cut is always at a
    // character boundary.
    CharsetEncoder encoder =
        StandardCharsets.UTF_8
            .newEncoder()
            .onMalformedInput(CodingErrorAction.REPLACE)
            .onUnmappableCharacter(CodingErrorAction.REPLACE);
    CharBuffer in = CharBuffer.wrap(text);
    encoder.encode(in, ByteBuffer.allocate(budget), true);
    String kept = text.substring(0, in.position());
    return new Summary(kept + (markBytes <= maxBytes ? TRUNCATION_MARK : ""), true);
  }
}
