package dev.carillon.retry.alert;

import dev.carillon.retry.RetrySettings;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * One HTTP POST of an alert's JSON body to the alert webhook, bounded by {@link #REQUEST_TIMEOUT},
 * with the headers a receiver needs to trust it and to deliver it once:
 *
 * <ul>
 *   <li>{@value #IDEMPOTENCY_HEADER}: {@code <instance id>/<attempt>}, the same on every delivery
 *       of one alert (the outbox delivers at least once: a crash between the webhook's answer and
 *       the stamp sends it again);
 *   <li>{@value #SIGNATURE_HEADER}: {@code sha256=<hex>}, the HMAC-SHA256 of the body's bytes with
 *       the shared secret ({@code retry.alert-secret}), when one is configured.
 * </ul>
 *
 * <p>The URL is never logged in full: its path often holds the webhook's secret. Thread-safe.
 */
public final class AlertWebhook {
  /** Longest one call may take, connecting included. */
  public static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);

  /** The header that names the alert, for the receiver's de-duplication. */
  public static final String IDEMPOTENCY_HEADER = "Idempotency-Key";

  /** The header with the body's HMAC-SHA256 signature. */
  public static final String SIGNATURE_HEADER = "X-Carillon-Signature";

  private static final String HMAC = "HmacSHA256";

  /**
   * What one call achieved.
   *
   * @param acknowledged the webhook answered 2xx
   * @param failure why not, when not acknowledged
   */
  public record Delivery(boolean acknowledged, String failure) {}

  private final URI url;
  private final String shownUrl;
  private final Optional<SecretKeySpec> key;
  private final HttpClient client;

  /**
   * @param url where to POST
   * @param secret the HMAC key shared with the receiver, or empty to send unsigned
   */
  public AlertWebhook(URI url, Optional<String> secret) {
    this.url = Objects.requireNonNull(url, "url");
    this.shownUrl = RetrySettings.maskUrl(url.toString());
    this.key = secret.map(s -> new SecretKeySpec(s.getBytes(StandardCharsets.UTF_8), HMAC));
    this.client = HttpClient.newBuilder().connectTimeout(REQUEST_TIMEOUT).build();
  }

  /** The URL with its path and query masked, for logs. */
  public String shownUrl() {
    return shownUrl;
  }

  /** Whether deliveries carry a signature. */
  public boolean signs() {
    return key.isPresent();
  }

  /**
   * POSTs {@code json}; returns whether the webhook acknowledged it (2xx).
   *
   * @throws InterruptedException when the calling thread is interrupted (shutdown)
   */
  public Delivery deliver(String json, String idempotencyKey) throws InterruptedException {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    HttpRequest.Builder request =
        HttpRequest.newBuilder(url)
            .timeout(REQUEST_TIMEOUT)
            .header("Content-Type", "application/json")
            .header(IDEMPOTENCY_HEADER, idempotencyKey)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    key.ifPresent(k -> request.header(SIGNATURE_HEADER, signature(k, body)));
    try {
      HttpResponse<Void> response =
          client.send(request.build(), HttpResponse.BodyHandlers.discarding());
      return response.statusCode() / 100 == 2
          ? new Delivery(true, null)
          : new Delivery(false, "HTTP " + response.statusCode());
    } catch (IOException e) {
      return new Delivery(false, e.toString());
    }
  }

  /** {@code sha256=} and the lower-case hex HMAC-SHA256 of {@code body} with {@code secret}. */
  public static String signature(String secret, byte[] body) {
    return signature(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), HMAC), body);
  }

  private static String signature(SecretKeySpec key, byte[] body) {
    try {
      Mac mac = Mac.getInstance(HMAC);
      mac.init(key);
      return "sha256=" + HexFormat.of().formatHex(mac.doFinal(body));
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      // Every Java runtime has HmacSHA256, and any byte string is a valid key for it.
      throw new IllegalStateException("cannot compute HmacSHA256", e);
    }
  }
}
