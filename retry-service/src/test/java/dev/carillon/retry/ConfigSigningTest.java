package dev.carillon.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.carillon.config.CommonSettings;
import dev.carillon.model.tuning.ConfigSigner;
import dev.carillon.testing.SettableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * With {@code config.signing-secret} set, the retry service applies only config records signed with
 * it: an unsigned record and one signed with another secret are rejected (counted, the previous
 * value kept), whatever they say.
 */
@Timeout(120)
class ConfigSigningTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String SECRET = "signing-secret-for-the-test-0123456789abcdef";
  private static final ConfigSigner SIGNER = ConfigSigner.fromSecretFile(SECRET);
  private static final ConfigSigner STRANGER =
      ConfigSigner.fromSecretFile("somebody-elses-secret-0123456789-0123456789");
  private static final String IMMEDIATE = "{\"policy\":\"IMMEDIATE\",\"maxRetries\":100}";
  private static final String DELAYED =
      "{\"policy\":\"EXPONENTIAL\",\"initial\":\"7m\",\"maxRetries\":3}";

  private static Harness h;
  private static RetryService service;

  @BeforeAll
  static void start() {
    h = new Harness("config_signing");
    service =
        h.start(
            Map.of(CommonSettings.SIGNING_SECRET, SECRET),
            new SettableClock(Instant.parse("2026-03-29T08:00:00Z")));
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  private static void awaitHandled(long offset) {
    await("the retry service handled config offset " + offset)
        .atMost(WAIT)
        .untilAsserted(
            () -> assertThat(service.tuning().lastOffset()).isGreaterThanOrEqualTo(offset));
  }

  @Test
  void an_unsigned_or_wrongly_signed_record_is_rejected_and_a_signed_one_applied()
      throws Exception {
    long rejectedBefore = service.metrics().totals().configRejected();

    long signed = h.publishConfig("retry/report", DELAYED, SIGNER.sign("retry/report", DELAYED));
    awaitHandled(signed);
    assertThat(service.tuning().taskOverride("report")).isPresent();
    assertThat(service.tuning().taskOverride("report").get().version()).isEqualTo(signed);

    // Someone who can produce to the topic but lacks the secret: 100 immediate retries.
    long unsigned = h.publishConfig("retry/report", IMMEDIATE, null);
    long foreign =
        h.publishConfig("retry/report", IMMEDIATE, STRANGER.sign("retry/report", IMMEDIATE));
    // A valid signature moved to another key or value does not verify either.
    long moved = h.publishConfig("retry/report", IMMEDIATE, SIGNER.sign("retry/report", DELAYED));
    long tombstone = h.publishConfig("retry/report", null, null);
    awaitHandled(tombstone);

    assertThat(service.tuning().taskOverride("report").get().version())
        .as("the signed override stays in force")
        .isEqualTo(signed);
    assertThat(service.metrics().totals().configRejected() - rejectedBefore).isEqualTo(4);
    assertThat(unsigned).isLessThan(foreign);
    assertThat(foreign).isLessThan(moved);

    long signedTombstone = h.publishConfig("retry/report", null, SIGNER.sign("retry/report", null));
    awaitHandled(signedTombstone);
    assertThat(service.tuning().taskOverride("report")).isEmpty();
  }
}
