package dev.carillon.schedctl;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.carillon.model.tuning.ConfigSigner;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Shares the fixed carillon.config topic with other tests; every test uses its own keys. */
class ConfigCommandTest {
  private static Map<String, String> env;

  @BeforeAll
  static void setUp() {
    Cli.ensureTopics();
    env =
        Map.of(
            "CARILLON_KAFKA_BOOTSTRAP", dev.carillon.devstack.DevStack.shared().kafkaBootstrap());
  }

  private static String uniqueTask() {
    return "cfg-" + UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void set_get_and_unset_a_retry_override_round_trip_through_the_topic() {
    String key = "retry/" + uniqueTask();
    Cli.Result set =
        Cli.run(
            env, "config", "set", key, "{\"policy\":\"delayed\",\"delays\":[\"PT5M\",\"15m\"]}");
    assertThat(set.code()).as(set.toString()).isZero();
    assertThat(set.out())
        .contains(key + " = {\"policy\":\"DELAYED\",\"maxRetries\":3,\"delays\":[\"5m\",\"15m\"]}");

    JsonNode got = Cli.run(env, "config", "get", key, "-o", "json").json();
    assertThat(got.get("value").get("delays").toString()).isEqualTo("[\"5m\",\"15m\"]");
    assertThat(got.get("valid").asBoolean()).isTrue();

    Cli.Result all = Cli.run(env, "config", "get");
    assertThat(all.out()).contains(key);

    Cli.Result unset = Cli.run(env, "config", "unset", key);
    assertThat(unset.code()).isZero();
    assertThat(unset.out()).contains(key + " unset (tombstone");
    assertThat(Cli.run(env, "config", "get", key).out()).contains(key + " is not set");
    assertThat(Cli.run(env, "config", "get", key, "-o", "json").json().get("value").isNull())
        .isTrue();
    assertThat(Cli.run(env, "config", "get").out()).doesNotContain(key);
  }

  @Test
  void with_a_signing_secret_set_and_unset_records_carry_a_signature_the_retry_service_accepts() {
    String secret = "schedctl-signing-secret-0123456789-abcdefgh";
    Map<String, String> signing = new HashMap<>(env);
    signing.put("CARILLON_CONFIG_SIGNING_SECRET", secret);
    String key = "retry/" + uniqueTask();
    Cli.Result set = Cli.run(signing, "config", "set", key, "{\"policy\":\"none\"}");
    assertThat(set.code()).as(set.toString()).isZero();
    ConfigSigner signer = ConfigSigner.fromSecretFile(secret);
    KafkaProbe.ConfigRecord sent = KafkaProbe.lastConfigRecord(key);
    assertThat(sent.value()).isNotNull();
    assertThat(signer.verify(key, sent.value(), sent.signature()))
        .isEqualTo(ConfigSigner.Verdict.VALID);

    assertThat(Cli.run(signing, "config", "unset", key).code()).isZero();
    KafkaProbe.ConfigRecord tombstone = KafkaProbe.lastConfigRecord(key);
    assertThat(tombstone.value()).isNull();
    assertThat(signer.verify(key, null, tombstone.signature()))
        .isEqualTo(ConfigSigner.Verdict.VALID);
    // Without the secret the tool signs nothing.
    assertThat(Cli.run(env, "config", "set", key, "{\"policy\":\"none\"}").code()).isZero();
    assertThat(KafkaProbe.lastConfigRecord(key).signature()).isNull();
  }

  @Test
  void a_rate_limit_is_validated_then_sent_in_canonical_form() {
    Cli.Result r =
        Cli.run(
            env,
            "config",
            "set",
            "ratelimit/global",
            "{\"maxPerScan\":500,\"perSecond\":50,\"burst\":100,\"perTaskPerSecond\":5}");
    assertThat(r.code()).as(r.toString()).isZero();
    JsonNode got = Cli.run(env, "-o", "json", "config", "get", "ratelimit/global").json();
    assertThat(got.get("value").get("burst").asInt()).isEqualTo(100);
    assertThat(got.get("value").get("perSecond").asDouble()).isEqualTo(50.0);
  }

  @Test
  void invalid_values_and_keys_exit_2_and_send_nothing() {
    String key = "retry/" + uniqueTask();
    assertThat(
            Cli.run(env, "config", "set", key, "{\"policy\":\"IMMEDIATE\",\"maxRetries\":2}")
                .code())
        .isZero();

    Cli.Result bad = Cli.run(env, "config", "set", key, "{\"policy\":\"SOMETIMES\"}");
    assertThat(bad.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(bad.errLines())
        .first()
        .asString()
        .startsWith(key + ": retry.policy='SOMETIMES': must be one of");
    Cli.Result notJson = Cli.run(env, "config", "set", key, "{policy: NONE");
    assertThat(notJson.code()).isEqualTo(Schedctl.BAD_INPUT);
    Cli.Result rate =
        Cli.run(
            env,
            "config",
            "set",
            "ratelimit/global",
            "{\"perSecond\":-1,\"burst\":1,\"perTaskPerSecond\":1,\"maxPerScan\":1}");
    assertThat(rate.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(rate.err())
        .contains("ratelimit/global: perSecond='-1': must be a number more than 0")
        .contains("schedctl: nothing sent");
    assertThat(notJson.err()).contains(key + ": retry='{policy: NONE': not a JSON object");
    Cli.Result unknown = Cli.run(env, "config", "set", "backoff/x", "{}");
    assertThat(unknown.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(unknown.err()).contains("key='backoff/x': must be retry/default");
    Cli.Result unsetBad = Cli.run(env, "config", "unset", "nope");
    assertThat(unsetBad.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(unsetBad.err()).contains("key='nope'");
    Cli.Result getBad = Cli.run(env, "config", "get", "retry/Bad Id");
    assertThat(getBad.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(getBad.err()).contains("key='retry/Bad Id': the task id must match");

    // The previous value is still the current one: nothing was sent.
    JsonNode got = Cli.run(env, "config", "get", key, "-o", "json").json();
    assertThat(got.get("value").get("policy").asText()).isEqualTo("IMMEDIATE");
    assertThat(got.get("value").get("maxRetries").asInt()).isEqualTo(2);
  }

  @Test
  void an_unreachable_kafka_exits_1_naming_kafka() {
    Map<String, String> down = new HashMap<>(env);
    down.put("CARILLON_KAFKA_BOOTSTRAP", "127.0.0.1:1");
    Cli.Result get = Cli.run(down, "--timeout", "1s", "config", "get", "retry/default");
    assertThat(get.code()).as(get.toString()).isEqualTo(Schedctl.UNREACHABLE);
    assertThat(get.errLines())
        .singleElement()
        .asString()
        .startsWith("cannot reach Kafka at 127.0.0.1:1: ");
    Cli.Result set =
        Cli.run(down, "config", "set", "retry/default", "{\"policy\":\"NONE\"}", "--timeout", "1s");
    assertThat(set.code()).isEqualTo(Schedctl.UNREACHABLE);
    assertThat(set.err()).startsWith("cannot reach Kafka at 127.0.0.1:1");
  }

  @Test
  void config_without_kafka_settings_is_a_configuration_error() {
    Cli.Result r = Cli.run(Map.of(), "config", "get");
    assertThat(r.code()).isEqualTo(Schedctl.BAD_INPUT);
    assertThat(r.err())
        .contains("missing configuration kafka.bootstrap")
        .contains("CARILLON_KAFKA_BOOTSTRAP");
  }
}
