package dev.carillon.control;

import static org.assertj.core.api.Assertions.assertThat;

import dev.carillon.control.ApiFixture.Response;
import dev.carillon.devstack.DevStackExtension;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The per-token rate: a burst, then 429 with Retry-After until the bucket refills. */
@ExtendWith(DevStackExtension.class)
class RateLimitTest {
  private static ApiFixture api;

  @BeforeAll
  static void start() {
    api = ApiFixture.start("api_rate", Map.of("api.rate.per-second", "0.5", "api.rate.burst", "2"));
  }

  @AfterAll
  static void stop() throws Exception {
    api.close();
  }

  @Test
  void a_token_over_its_rate_gets_429_with_retry_after_and_other_tokens_do_not() {
    assertThat(api.call("GET", "/api/v1/whoami", api.viewer).status()).isEqualTo(200);
    assertThat(api.call("GET", "/api/v1/whoami", api.viewer).status()).isEqualTo(200);
    Response limited = api.call("GET", "/api/v1/whoami", api.viewer);
    assertThat(limited.status()).isEqualTo(429);
    assertThat(limited.headers().firstValue("Retry-After")).hasValue("2");
    assertThat(limited.contentType()).isEqualTo("application/problem+json");
    assertThat(limited.json().get("problems").get(0).get("value").asText())
        .isEqualTo("token of vera");

    assertThat(api.call("GET", "/api/v1/whoami", api.operatorToken).status())
        .as("another token has its own bucket")
        .isEqualTo(200);

    api.clock.advance(Duration.ofSeconds(2));
    assertThat(api.call("GET", "/api/v1/whoami", api.viewer).status())
        .as("refilled")
        .isEqualTo(200);
    assertThat(api.call("GET", "/api/v1/whoami", api.viewer).status()).isEqualTo(429);
  }
}
